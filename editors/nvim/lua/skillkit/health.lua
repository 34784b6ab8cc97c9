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
  -- The project of the buffer :checkhealth was run from (the health buffer itself is the
  -- current one by now), found as the plugin finds it; else the working folder.
  local from = vim.fn.bufnr("#")
  local root = (from > 0 and config.wants(from)) and config.root(from) or vim.fn.getcwd()
  for _, running in ipairs(vim.lsp.get_clients({ name = "skillkit" })) do
    local command = running.config.cmd
    vim.health.info(string.format("server for %s (client id %d)%s", running.root_dir or "?",
      running.id, type(command) == "table" and (": " .. table.concat(command, " ")) or ""))
  end
  local cmd = config.cmd(root)
  vim.health.info("server command for " .. root .. ": " .. table.concat(cmd, " "))
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
  -- The interpreter that runs the server: the first word of `cmd` when it is set.
  local python = config.options.cmd and config.options.cmd[1] or config.python(root)
  if config.options.cmd then
    vim.health.ok("server started by your cmd option; skillkit's Python is not checked")
    return
  end
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
  if #vim.lsp.get_clients({ name = "skillkit" }) == 0 then
    vim.health.info("no skillkit server is running (open a Python skill or a SKILL.md)")
  end
end

return M
