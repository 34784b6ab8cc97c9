# Prints each argument on its own line, to show that no shell touches them.
for arg in "$@"; do printf '<%s>\n' "$arg"; done
