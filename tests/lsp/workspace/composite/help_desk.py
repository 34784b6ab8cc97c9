from skillkit_core import skill, terminal

billing = (
    skill(name="billing", entry="ask")
    .step("ask", prompt="What is the billing question?", next="answer")
    .step("answer", prompt="Answer it.", next=terminal)
    .build()
)

desk = (
    skill(name="desk", entry="triage", description="Route support questions.")
    .step("triage", prompt="Which area?", next=lambda ctx: "subskill:billing")
    .subskill("billing", billing)
    .topic("hours", label="Opening hours", content="9-17 on weekdays.")
    .build()
)
