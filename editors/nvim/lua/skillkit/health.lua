-- :checkhealth skillkit
local config = require("skillkit.config")

local M = {}

local function run(cmd)
  local result = vim.system(cmd, { text = true }):wait(10000)
  return result.code, vim.trim((result.stdout or "") .. (result.stderr or ""))
end

function M.check()
  vim.health.start("skillkit")
  if vim.fn.has("nvim-0.10") == 0 then
    vim.health.error("Neovim 0.10 or newer is required")
  else
    vim.health.ok("Neovim " .. tostring(vim.version()))
  end
  local root = vim.fs.root(0, config.root_markers) or vim.fn.getcwd()
  local cmd = config.cmd(root)
  vim.health.info("server command: " .. table.concat(cmd, " "))
  if config.trusted(root) then
    vim.health.ok("workspace trusted: skill modules run in an isolated worker (" .. root .. ")")
  else
    vim.health.warn(
      "workspace not trusted: skill modules are not imported, so semantic lint, prompt "
        .. "previews, :SkillkitSimulate, :SkillkitPreview and :SkillkitBuild are off (" .. root .. ")",
      {
        "Trust this project: require('skillkit').setup({ trusted = { '" .. root .. "' } })",
        "or trust every project: require('skillkit').setup({ trusted = true })",
        "or decide per project: trusted = function(root) return ... end",
      }
    )
  end
  local python = config.python(root)
  if vim.fn.executable(python) == 0 then
    vim.health.error("Python not found: " .. python, { "Set `python` in require('skillkit').setup()" })
    return
  end
  local code, out = run({ python, "--version" })
  if code == 0 then
    vim.health.ok("Python: " .. out .. " (" .. python .. ")")
  end
  code, out = run({ python, "-P", "-c", "import importlib.metadata as m; print(m.version('pyskillkit'))" })
  if code ~= 0 then
    vim.health.error("skillkit is not installed in " .. python,
      { python .. " -m pip install pyskillkit" })
    return
  end
  vim.health.ok("skillkit " .. out)
  code, out = run({ python, "-P", "-c", "import skill_lsp.server" })
  if code == 0 then
    vim.health.ok("the language server imports and can start")
  else
    vim.health.error("the language server does not import: " .. out)
  end
  local running = require("skillkit.client").get()
  if running then
    vim.health.ok("running (client id " .. running.id .. ")")
  else
    vim.health.info("not running in this buffer")
  end
end

return M
