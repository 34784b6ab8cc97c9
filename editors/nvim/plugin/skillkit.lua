-- Loaded by every plugin manager; setup() is the user's call.
if vim.g.loaded_skillkit then
  return
end
vim.g.loaded_skillkit = true
