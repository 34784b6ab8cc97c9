-- Options and the server configuration shared by every Neovim version.
local M = {}

M.defaults = {
  -- Command that starts the server; nil means { python, "-P", "-m", "skill_lsp" }.
  cmd = nil,
  -- Python used when cmd is nil (a trusted project's .venv is preferred when present).
  python = nil,
  host = "claude-code",
  tools = {},
  execute_code = true,
  -- Whether a workspace is trusted to run its skill modules (prompt previews, semantic
  -- lint, simulate, build): false (default: never), true (always), a list of folders
  -- (projects inside them are trusted) or a function(root) returning a boolean.
  -- Untrusted workspaces still get every feature that only reads the files.
  trusted = false,
  lint = { select = {}, ignore = {} },
  -- The analysis worker that imports skill modules: seconds per request, and MiB it may
  -- hold before a fresh one takes the next request (0: no limit).
  worker = { timeout = 10, memory_limit = 1024 },
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
-- What makes a folder a project (a workspace of skills), before a lone skill folder.
M.project_markers = { "pyproject.toml", ".git" }

function M.merge(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

--- The Python that runs the server: option, then a project .venv (in a trusted project
--- only: an untrusted project's .venv is its own program), then python3.
function M.python(root)
  if M.options.python then
    return M.options.python
  end
  if root and M.trusted(root) then
    local venv = vim.fs.joinpath(root, ".venv", "bin", "python")
    if vim.fn.executable(venv) == 1 then
      return venv
    end
  end
  return "python3"
end

-- -P: the server starts in the project, whose modules must not shadow its own
-- (a project's skill_lsp/ or pygls/ folder would otherwise be imported first).
function M.cmd(root)
  return M.options.cmd or { M.python(root), "-P", "-m", "skill_lsp" }
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
      worker = { timeout = o.worker.timeout, memoryLimit = o.worker.memory_limit },
    },
  }
end

local function real(path)
  local full = vim.fs.normalize(vim.fn.fnamemodify(vim.fn.expand(path), ":p"))
  return (vim.uv.fs_realpath(full) or full):gsub("/+$", "")
end

--- Whether the workspace at `root` may run its skill modules (the `trusted` option).
function M.trusted(root)
  local trusted = M.options.trusted
  if type(trusted) == "boolean" then
    return trusted
  end
  if type(trusted) == "function" then
    local ok, answer = pcall(trusted, root)
    return ok and answer == true
  end
  if type(trusted) ~= "table" or not root then
    return false
  end
  local here = real(root)
  for _, folder in ipairs(trusted) do
    local base = real(folder)
    if base ~= "" and (here == base or here:sub(1, #base + 1) == base .. "/") then
      return true
    end
  end
  return false
end

--- initializationOptions: the settings, and whether the workspace at `root` is trusted
--- (only the client may say so; the server assumes it is not).
function M.init_options(root)
  local settings = M.settings().skillkit
  settings.workspaceTrusted = M.trusted(root)
  return settings
end

--- Sets initializationOptions.workspaceTrusted for the root the client starts in
--- (vim.lsp.ClientConfig.before_init).
function M.before_init(params, client_config)
  params.initializationOptions = M.init_options(client_config.root_dir)
end

--- Whether `path` is a Markdown file under a skill's references/ folder (one whose
--- parent folder holds SKILL.md).
function M.is_skill_reference(path)
  for dir in vim.fs.parents(path) do
    if vim.fs.basename(dir) == "references"
      and vim.uv.fs_stat(vim.fs.joinpath(vim.fs.dirname(dir), "SKILL.md"))
    then
      return true
    end
  end
  return false
end

--- Whether a buffer is one the server handles: Python files, SKILL.md and the Markdown
--- files under a skill's references/.
function M.wants(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local ft = vim.bo[bufnr].filetype
  if ft == "python" then
    return true
  end
  if ft ~= "markdown" or name == "" then
    return false
  end
  return vim.fs.basename(name) == "SKILL.md" or M.is_skill_reference(name)
end

--- The workspace root for `path`: the nearest folder up with pyproject.toml or .git (so
--- every skill of a project shares one server, and renames and references reach across
--- them); else the nearest folder holding SKILL.md; else the file's own folder.
function M.root_of(path)
  local dir = vim.fs.dirname(path)
  local found = vim.fs.find(M.project_markers, { upward = true, path = dir })[1]
    or vim.fs.find("SKILL.md", { upward = true, path = dir })[1]
  return found and vim.fs.dirname(found) or dir
end

function M.root(bufnr)
  return M.root_of(vim.api.nvim_buf_get_name(bufnr))
end

return M
