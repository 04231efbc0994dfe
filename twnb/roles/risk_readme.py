"""The README's table of risky step mode's grades, made from `GRADES` (risk_grades.py): run
`python -m twnb.roles.risk_readme` and paste its output over the README's table;
tests/roles/test_risk_grades.py fails until they agree."""

from __future__ import annotations

from twnb.roles.risk_grades import GRADES


def readme_table() -> str:
    """The README's table of grades, made from GRADES."""
    rows = [
        "| the code | risky mode | verification finds it in the code by | the runtime guard sees |",
        "|---|---|---|---|",
    ]
    for grade in GRADES:
        action = "**pauses**" if grade.pauses else "runs"
        rows.append(f"| {grade.the_code} | {action} | {grade.verification} | {grade.guard} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(readme_table(), end="")
