# Lives outside scripts/: the runtime must refuse to run it.
echo "must not run"
