-- skillkit for Neovim: the language server, user commands and code lens refreshes.
--
--   require("skillkit").setup({ host = "claude-code" })
--
-- On Neovim >= 0.11 the server is configured through vim.lsp.config/vim.lsp.enable
-- (lsp/skillkit.lua); on 0.10 through vim.lsp.start from a FileType autocommand.
local config = require("skillkit.config")

local M = {}

local function start_legacy(bufnr)
  if not config.wants(bufnr) then
    return
  end
  local root = config.root(bufnr)
  vim.lsp.start({
    name = "skillkit",
    cmd = config.cmd(root),
    root_dir = root,
    settings = config.settings(),
    init_options = config.init_options(root),
    handlers = { ["window/showDocument"] = require("skillkit.client").show_document },
  }, { bufnr = bufnr })
end

local function has_lsp_config()
  return vim.fn.has("nvim-0.11") == 1 and vim.lsp.config ~= nil
end

function M.start_for_buffers()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and config.wants(bufnr) then
      if has_lsp_config() then
        vim.lsp.enable("skillkit", false)
        vim.lsp.enable("skillkit", true)
      else
        start_legacy(bufnr)
      end
    end
  end
end

function M.setup(opts)
  config.merge(opts)
  local group = vim.api.nvim_create_augroup("skillkit", { clear = true })
  if has_lsp_config() then
    vim.lsp.config("skillkit", {
      settings = config.settings(),
      init_options = config.init_options(),
      before_init = config.before_init,
    })
    vim.lsp.enable("skillkit")
  else
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = { "python", "markdown" },
      callback = function(args)
        start_legacy(args.buf)
      end,
    })
  end
  vim.api.nvim_create_autocmd(config.options.codelens_events, {
    group = group,
    callback = function(args)
      if config.wants(args.buf) then
        require("skillkit.client").refresh_codelens(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(args)
      local attached = vim.lsp.get_client_by_id(args.data.client_id)
      if attached and attached.name == "skillkit" then
        require("skillkit.client").refresh_codelens(args.buf)
      end
    end,
  })
  if config.options.commands then
    require("skillkit.commands").create()
  end
end

return M
