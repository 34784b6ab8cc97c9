-- Options and the server configuration shared by every Neovim version.
local M = {}

M.defaults = {
  -- Command that starts the server; nil means { python, "-m", "skill_lsp" }.
  cmd = nil,
  -- Python used when cmd is nil (a project .venv is preferred when present).
  python = nil,
  host = "claude-code",
  tools = {},
  execute_code = true,
  lint = { select = {}, ignore = {} },
  -- Options of :SkillkitBuild, as the server's build command takes them: single = true
  -- builds for this machine only (fast, offline); mode = "pyz" | "binary";
  -- protocol = "session" | "stateless"; output = a folder (default dist/<skill name>).
  build = {},
  -- Create the :Skillkit* user commands.
  commands = true,
  -- Refresh code lenses on these events (Neovim 0.11 needs explicit refreshes).
  codelens_events = { "BufEnter", "InsertLeave", "BufWritePost", "CursorHold" },
}

M.options = vim.deepcopy(M.defaults)

M.hosts = {
  "claude-code", "codex", "opencode", "gemini-cli", "cline",
  "roo-code", "kilo-code", "cursor", "amp", "generic",
}

M.root_markers = { "pyproject.toml", ".git", "SKILL.md" }

function M.merge(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

--- The Python that runs the server: option, then a project .venv, then python3.
function M.python(root)
  if M.options.python then
    return M.options.python
  end
  if root then
    local venv = vim.fs.joinpath(root, ".venv", "bin", "python")
    if vim.fn.executable(venv) == 1 then
      return venv
    end
  end
  return "python3"
end

function M.cmd(root)
  return M.options.cmd or { M.python(root), "-m", "skill_lsp" }
end

--- Settings as the server reads them (workspace/configuration section "skillkit").
function M.settings()
  local o = M.options
  return {
    skillkit = {
      host = o.host,
      tools = o.tools,
      executeCode = o.execute_code,
      lint = { select = o.lint.select, ignore = o.lint.ignore },
    },
  }
end

function M.init_options()
  local settings = M.settings().skillkit
  settings.workspaceTrusted = true
  return settings
end

--- Whether a buffer is one the server handles: Python files and SKILL.md.
function M.wants(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local ft = vim.bo[bufnr].filetype
  if ft == "python" then
    return true
  end
  return ft == "markdown" and vim.fs.basename(name) == "SKILL.md"
end

function M.root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find(M.root_markers, { upward = true, path = vim.fs.dirname(name) })[1]
  return found and vim.fs.dirname(found) or vim.fs.dirname(name)
end

return M
