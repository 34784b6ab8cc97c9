-- A headless Neovim with the plugin's defaults (no `trusted` option): opens a skill file
-- whose import would leave a mark, waits for the syntax layer's diagnostic, reads what
-- the server logged and :checkhealth, then checks the `trusted` option's other forms.
--
-- Environment: SKILLKIT_PLUGIN, SKILLKIT_PYTHON, SKILLKIT_FILE, SKILLKIT_OUT (JSON path).
local plugin = assert(os.getenv("SKILLKIT_PLUGIN"))
local file = assert(os.getenv("SKILLKIT_FILE"))
local out_path = assert(os.getenv("SKILLKIT_OUT"))
local seen = { errors = {}, logs = {} }

local function save()
  local handle = assert(io.open(out_path, "w"))
  handle:write(vim.json.encode(seen))
  handle:close()
end

local function stage(name, run)
  local ok, err = pcall(run)
  if not ok then
    seen.errors[name] = tostring(err)
  end
  save()
end

local function wait_for(what, condition, timeout)
  local deadline = vim.uv.now() + (timeout or 60000)
  while not condition() do
    if vim.uv.now() > deadline then
      error("timed out waiting for " .. what)
    end
    vim.wait(100)
  end
end

vim.lsp.handlers["window/logMessage"] = function(_, result)
  table.insert(seen.logs, result.message)
end

vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime! plugin/skillkit.lua")
require("skillkit").setup({ python = os.getenv("SKILLKIT_PYTHON") })
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

stage("diagnostics", function()
  wait_for("the syntax layer's diagnostic", function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "unknown-step" then
        return true
      end
    end
    return false
  end)
  vim.wait(1500) -- time for an analysis that must not happen
  seen.codes = vim.tbl_map(function(d)
    return d.code
  end, vim.diagnostic.get(buf))
end)

stage("health", function()
  vim.cmd("checkhealth skillkit")
  seen.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
end)

stage("option", function()
  local config = require("skillkit.config")
  local root = vim.fs.dirname(file)
  local forms = {}
  local function try(name, value)
    config.options.trusted = value
    forms[name] = config.init_options(root).workspaceTrusted
  end
  try("default", nil)
  try("true", true)
  try("parent folder", { vim.fs.dirname(root) })
  try("other folder", { root .. "-other" })
  try("function", function(r)
    return r == root
  end)
  try("failing function", function()
    error("no")
  end)
  seen.forms = forms
  -- The project's own .venv runs the server only when the project is trusted.
  config.options.python = nil
  config.options.trusted = false
  seen.untrusted_cmd = config.cmd(root)
  config.options.trusted = true
  seen.trusted_cmd = config.cmd(root)
end)

save()
vim.cmd("qa!")
