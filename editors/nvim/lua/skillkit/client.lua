-- Talking to the running skillkit client: server commands and code lens refreshes.
local M = {}

function M.get(bufnr)
  return vim.lsp.get_clients({ name = "skillkit", bufnr = bufnr or 0 })[1]
    or vim.lsp.get_clients({ name = "skillkit" })[1]
end

--- The client attached to `bufnr` itself (no other project's).
function M.of_buffer(bufnr)
  return vim.lsp.get_clients({ name = "skillkit", bufnr = bufnr or 0 })[1]
end

--- Run a server command (workspace/executeCommand); on_result(result) gets the answer.
function M.execute(command, arguments, on_result, bufnr)
  local client = M.get(bufnr)
  if not client then
    vim.notify("skillkit: the language server is not running here", vim.log.levels.WARN)
    return
  end
  client:request("workspace/executeCommand", { command = command, arguments = arguments },
    function(err, result)
      if err then
        vim.notify("skillkit: " .. command .. " failed: " .. (err.message or vim.inspect(err)),
          vim.log.levels.ERROR)
        return
      end
      if on_result then
        on_result(result)
      end
    end, bufnr or 0)
end

--- window/showDocument from the server (a code lens's preview or simulation): in a split,
--- or the window already showing it, as :SkillkitPreview shows it, instead of Neovim's
--- default of replacing the current window (the SKILL.md being edited).
function M.show_document(err, params, ctx)
  if err or not params or params.external then
    return vim.lsp.handlers["window/showDocument"](err, params, ctx)
  end
  local buf = vim.fn.bufadd(vim.uri_to_fname(params.uri))
  if vim.api.nvim_buf_is_loaded(buf) then
    -- Written again on each run: read it again (a generated file, never edited here).
    vim.api.nvim_buf_call(buf, function()
      vim.cmd("silent edit!")
    end)
  else
    vim.fn.bufload(buf)
  end
  vim.bo[buf].buflisted = true
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd("vsplit")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  elseif params.takeFocus then
    vim.api.nvim_set_current_win(win)
  end
  return { success = true }
end

function M.refresh_codelens(bufnr)
  if M.get(bufnr) then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end
end

return M
