"""Hand-written documents shared by the MultiConIR tests (no LLM involved)."""

from __future__ import annotations

NOVEL = (
    "The Salt Orchard is a 1987 novel by Ines Varga. "
    "The story follows a beekeeper named Mara on a windswept island off the northern coast. "
    "Mara's brother returns after twenty years at sea with a sealed letter. "
    "The island's orchard has been dying since the lighthouse went dark. "
    "The book won the Harbour Prize for debut fiction in 1988."
)
NOVEL_CONDITIONS = [
    "The Salt Orchard is a 1987 novel by Ines Varga.",
    "The story follows a beekeeper named Mara on a windswept island off the northern coast.",
    "The book won the Harbour Prize for debut fiction in 1988.",
]
NOVEL_CONDITION_IDS = [1, 2, 5]  # NOVEL_CONDITIONS among NOVEL's numbered sentences
# descriptive queries for k = 1..3 conditions: each mentions every condition, copies nothing
NOVEL_DESCRIPTIVE = {
    1: "a 1987 book written by Varga",
    2: "a 1987 book written by Varga about Mara, who keeps bees on a windswept island",
    3: "a 1987 book written by Varga whose beekeeper heroine later won the Harbour Prize",
}
NOVEL_NEGATIVES = [
    "The Salt Orchard is a 2004 novella by Ines Varga.",
    "The story follows a glassblower named Mara in a crowded river port.",
    "The book was passed over by every prize jury that year.",
]

PATIENT = (
    "A 54-year-old man presented with crushing chest pain radiating to the left arm.\n"
    "He is allergic to penicillin and to shellfish.  His father died of a stroke at sixty. "
    "An angiogram showed a blocked right coronary artery. "
    "He was discharged after four days and returned to work within a month."
)


def descriptive_marker(k: int) -> str:
    """The words of the descriptive-query prompt that tell requests for ``k`` conditions apart."""
    return f"mentions all {k} conditions" if k > 1 else "mentions its condition"
