# Starts a background child that would outlive the script, records its pid, then hangs.
sleep 300 &
echo "$!" > "$1"
echo "started child $!"
wait
