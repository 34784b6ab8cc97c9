-- The :Skillkit* user commands.
local client = require("skillkit.client")
local config = require("skillkit.config")

local M = {}

-- Server commands take one options object; the file commands name the current buffer,
-- which must be a skill file the server has (a preview split, a help buffer or another
-- project's file gave "no such file: skillkit://preview.md").
local function this_file(extra)
  if not (config.wants(0) and client.of_buffer(0)) then
    vim.notify("skillkit: open a skill file (a Python skill or a SKILL.md) first",
      vim.log.levels.WARN)
    return nil
  end
  return { vim.tbl_extend("force", extra or {}, { uri = vim.uri_from_bufnr(0) }) }
end

local function run_on_file(command, extra, on_result)
  local arguments = this_file(extra)
  if arguments then
    client.execute(command, arguments, on_result, 0)
  end
end

--- Show markdown text in a scratch split (or reuse the one already open).
function M.show_markdown(title, text)
  local name = "skillkit://" .. title
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].filetype = "markdown"
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text or "", "\n", { plain = true }))
  vim.bo[buf].modifiable = false
  if vim.fn.bufwinnr(buf) == -1 then
    vim.cmd("vsplit")
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

local function markdown_of(result)
  if type(result) == "string" then
    return result
  end
  if type(result) == "table" and result.markdown then
    return result.markdown
  end
  return vim.inspect(result)
end

function M.build()
  run_on_file("skillkit.build", config.options.build, function(result)
    local dir = type(result) == "table" and result.output or nil
    vim.notify("skillkit: built " .. (dir or vim.inspect(result)))
  end)
end

function M.simulate()
  run_on_file("skillkit.simulate", { show = false }, function(result)
    M.show_markdown("simulation.md", markdown_of(result))
  end)
end

function M.preview()
  run_on_file("skillkit.preview", { show = false }, function(result)
    M.show_markdown("preview.md", markdown_of(result))
  end)
end

--- The quickfix items of a `skillkit check --format json` report (0-based positions).
function M.quickfix_items(report)
  local items = {}
  local kinds = { error = "E", warning = "W", info = "I" }
  for _, d in ipairs((type(report) == "table" and report.diagnostics) or {}) do
    local range = d.range or {}
    table.insert(items, {
      filename = d.file,
      lnum = (range.line or 0) + 1,
      col = (range.column or 0) + 1,
      type = kinds[d.severity] or "E",
      text = string.format("[%s] %s", d.rule, d.message),
    })
  end
  return items
end

--- Lint the workspace and put every finding into the quickfix list.
function M.check()
  client.execute("skillkit.check", {}, function(report)
    local items = M.quickfix_items(report)
    vim.fn.setqflist({}, "r", { title = "skillkit check", items = items })
    local summary = type(report) == "table" and report.summary or {}
    vim.notify(string.format("skillkit: %d error(s), %d warning(s)",
      summary.errors or 0, summary.warnings or 0))
  end)
end

--- The document link of `links` (textDocument/documentLink's answer) at `position`.
function M.link_at(links, position)
  for _, link in ipairs(links or {}) do
    local first, last = link.range.start, link.range["end"]
    local after_start = position.line > first.line
      or (position.line == first.line and position.character >= first.character)
    local before_end = position.line < last.line
      or (position.line == last.line and position.character < last.character)
    if after_start and before_end then
      return link
    end
  end
  return nil
end

--- Open the file the document link under the cursor points to (a link of SKILL.md or of
--- a reference file: [text](references/x.md), scripts/run.py, ...).
function M.open_link()
  local running = client.get(0)
  if not running then
    vim.notify("skillkit: the language server is not running here", vim.log.levels.WARN)
    return
  end
  local position = vim.lsp.util.make_position_params(0, running.offset_encoding).position
  local params = { textDocument = vim.lsp.util.make_text_document_params(0) }
  running:request("textDocument/documentLink", params, function(err, links)
    local link = not err and M.link_at(links, position) or nil
    if not (link and link.target) then
      vim.notify("skillkit: no link under the cursor", vim.log.levels.INFO)
      return
    end
    -- A target may end in a fragment (#L12); the file is the part before it.
    local target = link.target:gsub("#.*$", "")
    vim.cmd.edit(vim.fn.fnameescape(vim.uri_to_fname(target)))
  end, 0)
end

function M.host(name)
  if not vim.tbl_contains(config.hosts, name) then
    vim.notify("skillkit: unknown host '" .. tostring(name) .. "'", vim.log.levels.ERROR)
    return
  end
  config.options.host = name
  -- Every project's server, and the ones started later (a restart, another project).
  if vim.lsp.config ~= nil and vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.config("skillkit", { settings = config.settings() })
  end
  for _, running in ipairs(vim.lsp.get_clients({ name = "skillkit" })) do
    running.settings = vim.tbl_deep_extend("force", running.settings or {}, config.settings())
    running:notify("workspace/didChangeConfiguration", { settings = config.settings() })
    running:request("workspace/executeCommand", { command = "skillkit.setHost", arguments = { name } })
  end
  vim.notify("skillkit: host " .. name)
end

function M.restart()
  for _, running in ipairs(vim.lsp.get_clients({ name = "skillkit" })) do
    running:stop(true)
  end
  vim.defer_fn(function()
    require("skillkit").start_for_buffers()
  end, 500)
end

function M.create()
  local create = vim.api.nvim_create_user_command
  create("SkillkitBuild", M.build, { desc = "Build the skill of this file" })
  create("SkillkitSimulate", M.simulate, { desc = "Simulate a run (transcript in a split)" })
  create("SkillkitPreview", M.preview, { desc = "Preview every step's prompt" })
  create("SkillkitCheck", M.check, { desc = "Lint the workspace into the quickfix list" })
  create("SkillkitRestart", M.restart, { desc = "Restart the skillkit server" })
  create("SkillkitOpenLink", M.open_link, { desc = "Open the file the link under the cursor names" })
  create("SkillkitHost", function(args)
    M.host(args.args)
  end, {
    nargs = 1,
    desc = "Choose the agent host for previews",
    complete = function(lead)
      return vim.tbl_filter(function(h)
        return vim.startswith(h, lead)
      end, config.hosts)
    end,
  })
end

return M
