from skillkit_core import branch, skill, terminal

broken = (
    skill(name="broken", entry="start", description="A skill with mistakes.")
    .step("start", prompt="Begin.", next="verify")
    .step(
        "verify",
        prompt="Check.",
        next=[branch("finish", when=lambda c: True), branch("start")],
        max_visits=3,
        on_max_visits="finsh",
    )
    .step("finish", prompt="Done.", next=terminal)
    .step("orphan", prompt="Nobody comes here.", next=terminal)
    .build()
)
