# a module the scripts could import
