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

local function is_list_of_strings(value)
  if type(value) ~= "table" then
    return false
  end
  for key, item in pairs(value) do
    if type(key) ~= "number" or type(item) ~= "string" then
      return false
    end
  end
  return true
end

-- A string of names ("Bash, Read") as the list the server takes, else the value.
local function names(value)
  if type(value) == "string" then
    return vim.split(value, "[,%s]+", { trimempty = true })
  end
  return value
end

-- The ranges the server takes (skill_lsp/settings.py), which ignores other values.
local function timeout(value)
  return type(value) == "number" and value >= 0.1 and value <= 600
end

local function memory_limit(value)
  return type(value) == "number" and value == math.floor(value)
    and (value == 0 or (value >= 64 and value <= 1048576))
end

-- Each option: whether a value is right (names given as one string split first), and
-- what a right one is.
local checks = {
  cmd = { ok = function(v) return v == nil or (is_list_of_strings(v) and #v > 0) end,
          want = "a list of strings, such as { 'skillkit', 'lsp' }" },
  python = { ok = function(v) return v == nil or (type(v) == "string" and v ~= "") end,
             want = "the path of a Python interpreter" },
  host = { ok = function(v) return vim.tbl_contains(M.hosts, v) end,
           want = "one of " .. table.concat(M.hosts, ", ") },
  tools = { ok = is_list_of_strings, want = "a list of tool names" },
  execute_code = { ok = function(v) return type(v) == "boolean" end, want = "true or false" },
  trusted = {
    ok = function(v)
      return type(v) == "boolean" or type(v) == "function" or is_list_of_strings(v)
    end,
    want = "true, false, a list of folders or a function(root)",
  },
  build = { ok = function(v) return type(v) == "table" end, want = "a table of build options" },
  commands = { ok = function(v) return type(v) == "boolean" end, want = "true or false" },
  codelens_events = {
    ok = function(v)
      if not is_list_of_strings(v) then
        return false
      end
      for _, event in ipairs(v) do
        if vim.fn.exists("##" .. event) ~= 1 then
          return false
        end
      end
      return true
    end,
    want = "a list of autocommand events",
  },
}

-- Options inside a table: lint = { select, ignore }, worker = { timeout, memory_limit }.
local nested = {
  lint = { select = is_list_of_strings, ignore = is_list_of_strings },
  worker = { timeout = timeout, memory_limit = memory_limit },
}

--- The options `opts` asks for over the defaults; a value of the wrong kind is left out
--- (the default stays) and named in the returned warnings, so one typo neither stops
--- setup() nor passes on unseen. An empty folder in `trusted` (which would trust the
--- working folder) is dropped the same way.
function M.validate(opts)
  local warnings, clean = {}, {}
  local function warn(name, value, want)
    table.insert(warnings, string.format("option %s = %s is not %s; the default is used",
      name, vim.inspect(value), want))
  end
  for name, value in pairs(opts or {}) do
    if nested[name] then
      if type(value) ~= "table" then
        warn(name, value, "a table")
      else
        clean[name] = {}
        for key, item in pairs(value) do
          local check = nested[name][key]
          item = name == "lint" and names(item) or item
          if check and check(item) then
            clean[name][key] = item
          elseif check then
            local want = {
              lint = "a list of rule ids",
              timeout = "a number of seconds from 0.1 to 600",
              memory_limit = "0 or a whole number of MiB from 64",
            }
            warn(name .. "." .. key, item, want[key] or want[name])
          else
            table.insert(warnings, "unknown option " .. name .. "." .. tostring(key))
          end
        end
      end
    elseif checks[name] then
      if name == "tools" then
        value = names(value)
      end
      if name == "trusted" and is_list_of_strings(value) then
        local folders = vim.tbl_filter(function(folder) return vim.trim(folder) ~= "" end, value)
        if #folders < #value then
          table.insert(warnings, "option trusted: an empty folder trusts nothing; it is left out")
        end
        value = folders
      end
      if checks[name].ok(value) then
        clean[name] = value
      else
        warn(name, value, checks[name].want)
      end
    else
      table.insert(warnings, "unknown option " .. tostring(name))
    end
  end
  return clean, warnings
end

function M.merge(opts)
  local clean, warnings = M.validate(opts)
  for _, warning in ipairs(warnings) do
    vim.notify("skillkit: " .. warning, vim.log.levels.WARN)
  end
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), clean)
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
--- files under a skill's references/, each a file (an unnamed or special buffer has no
--- folder to be a project's: its root would be ".").
function M.wants(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or vim.bo[bufnr].buftype ~= "" or name:match("^%a[%w+.-]*://") then
    return false
  end
  local ft = vim.bo[bufnr].filetype
  if ft == "python" then
    return true
  end
  if ft ~= "markdown" then
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

--- The root a client starts in: its own root_dir (Neovim 0.11 passes the client's config
--- to a cmd function), not the current buffer's, which may be another project's by the
--- time the start runs.
function M.client_root(client_config)
  return (client_config and client_config.root_dir) or M.root(0)
end

return M
