echo tidy
