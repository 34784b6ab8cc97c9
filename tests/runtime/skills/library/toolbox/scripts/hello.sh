# No shebang and no executable bit: the runtime runs .sh files with bash.
name="${1:-world}"
printf '{"lang": "bash", "greeting": "Hello, %s!", "argc": %d}\n' "$name" "$#"
