"""Uses CPU until stopped."""

while True:
    pass
