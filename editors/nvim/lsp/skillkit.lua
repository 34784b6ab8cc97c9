-- Neovim >= 0.11: `vim.lsp.enable("skillkit")` picks this file up from the runtimepath.
local config = require("skillkit.config")

return {
  cmd = function(dispatchers, client_config)
    return vim.lsp.rpc.start(config.cmd(config.client_root(client_config)), dispatchers)
  end,
  filetypes = { "python", "markdown" },
  root_dir = function(bufnr, on_dir)
    if config.wants(bufnr) then
      on_dir(config.root(bufnr))
    end
  end,
  settings = config.settings(),
  init_options = config.init_options(),
  before_init = config.before_init,
  handlers = { ["window/showDocument"] = require("skillkit.client").show_document },
}
