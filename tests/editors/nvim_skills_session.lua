-- Drives a real headless Neovim through hand-written skills with the skillkit plugin:
-- a SKILL.md's diagnostics, its disclosure-tier code lens and its document links,
-- :SkillkitOpenLink into a reference file
-- (which the plugin attaches too), and renaming a skill from a /name in another skill
-- (its name:, its folder and every reference), then saving. Writes what it saw as JSON
-- for tests/editors/test_neovim_plugin.py.
--
-- Environment: SKILLKIT_PLUGIN (editors/nvim), SKILLKIT_PYTHON (has skillkit installed),
-- SKILLKIT_ROOT (a copy of tests/lsp/linked_skills, a git repository), SKILLKIT_OUT.
local plugin = assert(os.getenv("SKILLKIT_PLUGIN"))
local root = assert(os.getenv("SKILLKIT_ROOT"))
local out_path = assert(os.getenv("SKILLKIT_OUT"))
local seen = { errors = {} }
local TIMEOUT = 60000

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

seen.messages = {}
vim.notify = function(message, level)
  table.insert(seen.messages, { message = tostring(message), level = level or 0 })
end

local function wait_for(what, condition, timeout)
  local deadline = vim.uv.now() + (timeout or TIMEOUT)
  while not condition() do
    if vim.uv.now() > deadline then
      error("timed out waiting for " .. what)
    end
    vim.wait(100)
  end
end

local function relative(path)
  return (vim.fs.normalize(path):gsub("^" .. vim.pesc(vim.fs.normalize(root)) .. "/", ""))
end

vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime! plugin/skillkit.lua")
-- The defaults: an untrusted workspace, where everything for SKILL.md works.
require("skillkit").setup({ python = os.getenv("SKILLKIT_PYTHON") })
vim.cmd("edit " .. vim.fn.fnameescape(vim.fs.joinpath(root, "pdf-tools", "SKILL.md")))
local buf = vim.api.nvim_get_current_buf()

local function client(bufnr)
  return vim.lsp.get_clients({ name = "skillkit", bufnr = bufnr or buf })[1]
end

local function cursor_on(pattern, shift)
  for index, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local column = line:find(pattern, 1, true)
    if column then
      vim.api.nvim_win_set_cursor(0, { index, column - 1 + (shift or 0) })
      return
    end
  end
  error("no line has " .. pattern)
end

stage("attach", function()
  wait_for("the server to attach", function()
    return client() ~= nil
  end)
  seen.root = client().root_dir
end)

stage("diagnostics", function()
  wait_for("the broken-link diagnostic", function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "broken-link" then
        return true
      end
    end
    return false
  end)
  seen.codes = vim.tbl_map(function(d)
    return d.code
  end, vim.diagnostic.get(buf))
end)

stage("lens", function()
  -- The plugin refreshes code lenses on its events (CursorHold among them).
  wait_for("the disclosure-tier lens", function()
    vim.api.nvim_exec_autocmds("CursorHold", { buffer = buf })
    vim.wait(200)
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title:find("listing budget", 1, true) then
        seen.lens = { title = lens.command.title, line = lens.range.start.line }
        return true
      end
    end
    return false
  end)
end)

stage("links", function()
  local params = { textDocument = vim.lsp.util.make_text_document_params(buf) }
  local answer = client():request_sync("textDocument/documentLink", params, 10000, buf)
  seen.links = vim.tbl_map(function(link)
    local first = link.range.start
    local line = vim.api.nvim_buf_get_lines(buf, first.line, first.line + 1, false)[1]
    return {
      target = relative(vim.uri_to_fname(link.target)),
      text = line:sub(first.character + 1, link.range["end"].character),
    }
  end, answer and answer.result or {})
end)

stage("open_link", function()
  cursor_on("references/extracting.md", 3)
  vim.cmd("SkillkitOpenLink")
  wait_for("the linked file to open", function()
    return vim.endswith(vim.api.nvim_buf_get_name(0), "/references/extracting.md")
  end)
  local reference = vim.api.nvim_get_current_buf()
  seen.opened = relative(vim.api.nvim_buf_get_name(reference))
  wait_for("the plugin to attach the reference file", function()
    return client(reference) ~= nil
  end)
  seen.reference_attached = true
  seen.same_client = client(reference).id == client(buf).id
  vim.cmd("buffer " .. buf)
end)

stage("rename", function()
  cursor_on("/report-writer", 3)
  vim.lsp.buf.rename("report-builder")
  wait_for("the skill's folder to be renamed", function()
    return vim.uv.fs_stat(vim.fs.joinpath(root, "report-builder", "SKILL.md")) ~= nil
  end)
  vim.cmd("silent wall")
  seen.renamed_buffers = {}
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr) ~= "" then
      table.insert(seen.renamed_buffers, relative(vim.api.nvim_buf_get_name(bufnr)))
    end
  end
  seen.modified = vim.tbl_filter(function(bufnr)
    return vim.bo[bufnr].modified
  end, vim.api.nvim_list_bufs())
end)

save()
vim.cmd("qa!")
