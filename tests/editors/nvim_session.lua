-- Drives a real headless Neovim through what an author does with the skillkit plugin,
-- and writes what it saw as JSON for tests/editors/test_neovim_plugin.py to check.
--
-- Environment: SKILLKIT_PLUGIN (editors/nvim), SKILLKIT_PYTHON (has skillkit installed),
-- SKILLKIT_FILE (a skill file with an unknown step 'verfy'), SKILLKIT_OUT (JSON path).
local plugin = assert(os.getenv("SKILLKIT_PLUGIN"))
local file = assert(os.getenv("SKILLKIT_FILE"))
local out_path = assert(os.getenv("SKILLKIT_OUT"))
local seen = { errors = {} }
local TIMEOUT = 60000

local function save()
  local handle = assert(io.open(out_path, "w"))
  handle:write(vim.json.encode(seen))
  handle:close()
end

-- Each stage records its result; a failing stage is recorded and the others still run.
local function stage(name, run)
  local ok, err = pcall(run)
  if not ok then
    seen.errors[name] = tostring(err)
  end
  save()
end

-- What the plugin tells the user, kept for the test (and for its failure messages).
seen.messages = {}
vim.notify = function(message, level)
  table.insert(seen.messages, { message = tostring(message), level = level or 0 })
end

-- Polls `condition` from the top level (a condition may make its own requests: a
-- request_sync nested inside vim.wait's callback starves the client's event loop).
local function wait_for(what, condition, timeout)
  local deadline = vim.uv.now() + (timeout or TIMEOUT)
  while not condition() do
    if vim.uv.now() > deadline then
      error("timed out waiting for " .. what)
    end
    vim.wait(100)
  end
end

vim.opt.runtimepath:prepend(plugin)
vim.cmd("runtime! plugin/skillkit.lua")
require("skillkit").setup({
  python = os.getenv("SKILLKIT_PYTHON"),
  build = { single = true },
  trusted = true, -- the author's own project: simulate, preview and build run its code
})
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

local function client()
  return vim.lsp.get_clients({ name = "skillkit", bufnr = buf })[1]
end

local function skillkit_diagnostics()
  return vim.tbl_filter(function(d)
    return d.source == "skillkit"
  end, vim.diagnostic.get(buf))
end

local function line_of(pattern)
  for index, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local column = line:find(pattern, 1, true)
    if column then
      return index, column
    end
  end
  error("no line has " .. pattern)
end

stage("attach", function()
  wait_for("the server to attach", function()
    return client() ~= nil
  end)
  seen.encoding = client().offset_encoding
end)

stage("diagnostics", function()
  wait_for("the unknown-step diagnostic", function()
    for _, d in ipairs(skillkit_diagnostics()) do
      if d.code == "unknown-step" then
        return true
      end
    end
    return false
  end)
  seen.diagnostics = vim.tbl_map(function(d)
    return { code = d.code, lnum = d.lnum, col = d.col, message = d.message }
  end, skillkit_diagnostics())
end)

local function hover_at(pattern, until_text)
  local row, column = line_of(pattern)
  vim.api.nvim_win_set_cursor(0, { row, column - 1 })
  local params = vim.lsp.util.make_position_params(0, client().offset_encoding)
  local text
  -- The first semantic pass may still be running: ask until the rendered text is there.
  local ok, err = pcall(wait_for, "a hover with " .. until_text, function()
    local answer = client():request_sync("textDocument/hover", params, 10000, buf)
    local result = answer and answer.result
    text = result and result.contents and result.contents.value or nil
    return text ~= nil and text:find(until_text, 1, true) ~= nil
  end)
  if not ok then
    error(err .. "; the last hover was: " .. tostring(text))
  end
  return text
end

stage("hover", function()
  seen.hover = hover_at('"choose",', "<ask-user")
  seen.primitive_hover = hover_at("ask_user(", "AskUserQuestion")
end)

stage("codelens", function()
  wait_for("resolved code lenses", function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.wait(200)
    local lenses = vim.lsp.codelens.get(buf)
    local titles = {}
    for _, lens in ipairs(lenses) do
      if lens.command and lens.command.title ~= "" then
        table.insert(titles, lens.command.title)
      end
    end
    seen.lenses = titles
    return #titles > 0 and #titles == #lenses
  end)
end)

stage("check", function()
  vim.fn.setqflist({}, "r")
  vim.cmd("SkillkitCheck")
  wait_for("the quickfix list", function()
    return vim.fn.getqflist({ title = 0 }).title == "skillkit check"
  end)
  seen.quickfix = vim.tbl_map(function(item)
    return { lnum = item.lnum, col = item.col, type = item.type, text = item.text }
  end, vim.fn.getqflist())
end)

stage("fix", function()
  local row = line_of('"verfy"')
  local diagnostic = vim.tbl_filter(function(d)
    return d.code == "unknown-step"
  end, skillkit_diagnostics())[1]
  local params = vim.lsp.util.make_range_params(0, client().offset_encoding)
  params.range = {
    start = { line = diagnostic.lnum, character = diagnostic.col },
    ["end"] = { line = diagnostic.end_lnum, character = diagnostic.end_col },
  }
  params.context = { diagnostics = { diagnostic.user_data.lsp } }
  local answer = client():request_sync("textDocument/codeAction", params, 10000, buf)
  local titles, chosen = {}, nil
  for _, action in ipairs(answer.result or {}) do
    table.insert(titles, action.title)
    if action.isPreferred and action.edit then
      chosen = action
    end
  end
  seen.actions = titles
  assert(chosen, "no preferred quick fix on line " .. row)
  vim.lsp.util.apply_workspace_edit(chosen.edit, client().offset_encoding)
  vim.cmd("write")
  wait_for("the diagnostic to go", function()
    return #vim.tbl_filter(function(d)
      return d.code == "unknown-step"
    end, skillkit_diagnostics()) == 0
  end)
  seen.fixed_line = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
end)

stage("simulate", function()
  vim.cmd("SkillkitSimulate")
  wait_for("the transcript split", function()
    return vim.fn.bufnr("skillkit://simulation.md") ~= -1
  end)
  local transcript = vim.fn.bufnr("skillkit://simulation.md")
  seen.transcript = table.concat(vim.api.nvim_buf_get_lines(transcript, 0, -1, false), "\n")
  seen.transcript_filetype = vim.bo[transcript].filetype
  vim.cmd("wincmd p")
end)

local function said(prefix)
  for _, message in ipairs(seen.messages) do
    if vim.startswith(message.message, prefix) then
      return true
    end
  end
  return false
end

stage("build", function()
  vim.cmd("SkillkitBuild")
  wait_for("the build to finish", function()
    return said("skillkit: built") or said("skillkit: skillkit.build failed")
  end, 180000)
  seen.built = vim.fs.joinpath(vim.fs.dirname(file), "dist", "deploy-check", "SKILL.md")
end)

stage("host", function()
  vim.cmd("SkillkitHost codex")
  seen.host_completion = vim.fn.getcompletion("SkillkitHost co", "cmdline")
  seen.host = require("skillkit.config").options.host
end)

stage("health", function()
  vim.cmd("checkhealth skillkit")
  seen.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
end)

save()
vim.cmd("qa!")
