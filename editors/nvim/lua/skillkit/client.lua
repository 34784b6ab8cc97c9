-- Talking to the running skillkit client: server commands and code lens refreshes.
local M = {}

function M.get(bufnr)
  return vim.lsp.get_clients({ name = "skillkit", bufnr = bufnr or 0 })[1]
    or vim.lsp.get_clients({ name = "skillkit" })[1]
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

function M.refresh_codelens(bufnr)
  if M.get(bufnr) then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  end
end

return M
