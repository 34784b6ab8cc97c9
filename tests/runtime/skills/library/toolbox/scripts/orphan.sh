# Leaves a child running that still holds stdout, records its pid, and exits at once.
sleep 300 &
echo "$!" > "$1"
echo "parent done"
