"""Chemical formulas a passage spells out in words: "NaCl" for "sodium chloride".

A token is read as a formula when it is a run of element symbols with a digit or a lower-case
letter in it ("NaCl", "CO2", "H2SO4"; an all-capital run such as "KH" stays an acronym). It is
grounded in a passage that writes it, names its compound ("ammonia" for NH3), or names every
one of its elements ("sodium" and "chloride"): "NaOH" against "sodium chloride" is not.
"""

from __future__ import annotations

import re

#: element symbol -> word roots a passage writes it by ("chlor" in chloride, chlorine)
ELEMENT_ROOTS: dict[str, tuple[str, ...]] = {
    "H": ("hydrogen", "hydr"), "He": ("helium",), "Li": ("lithium",), "B": ("boron", "bor"),
    "C": ("carbon", "carbide"), "N": ("nitrogen", "nitr"), "O": ("oxygen", "ox"),
    "F": ("fluor",), "Ne": ("neon",), "Na": ("sodium",), "Mg": ("magnesium",),
    "Al": ("alumin",), "Si": ("silic",), "P": ("phosph",), "S": ("sulf", "sulph"),
    "Cl": ("chlor",), "Ar": ("argon",), "K": ("potassium",), "Ca": ("calcium",),
    "Ti": ("titanium",), "Cr": ("chrom",), "Mn": ("manganese",), "Fe": ("iron", "ferr"),
    "Co": ("cobalt",), "Ni": ("nickel",), "Cu": ("copper", "cupr"), "Zn": ("zinc",),
    "Br": ("brom",), "Ag": ("silver",), "Sn": ("tin",), "I": ("iod",), "Ba": ("barium",),
    "Pt": ("platinum",), "Au": ("gold",), "Hg": ("mercury",), "Pb": ("lead",),
    "U": ("uranium",), "Se": ("selen",),
}
#: formulas known by a common name rather than by their elements
COMMON_NAMES: dict[str, tuple[str, ...]] = {
    "H2O": ("water",), "NH3": ("ammonia",), "NH4": ("ammonium",), "NO3": ("nitrate",),
    "NO2": ("nitrite", "nitrogen dioxide"), "CO2": ("carbon dioxide",),
    "CO": ("carbon monoxide",), "O2": ("oxygen",), "O3": ("ozone",), "CH4": ("methane",),
    "NaCl": ("table salt", "common salt"), "H2O2": ("hydrogen peroxide",),
    "NaHCO3": ("bicarbonate", "baking soda"), "C6H12O6": ("glucose",),
    "C2H5OH": ("ethanol",), "H2SO4": ("sulfuric acid", "sulphuric acid"),
    "HCl": ("hydrochloric acid",), "NaOH": ("caustic soda", "lye"), "PO4": ("phosphate",),
    "CaCO3": ("calcium carbonate", "limestone", "chalk"), "SiO2": ("silica", "quartz"),
    "Fe2O3": ("rust",), "Cl2": ("chlorine",), "N2": ("nitrogen",), "H2": ("hydrogen",),
}
_TOKEN = re.compile(r"\b(?:[A-Z][a-z]?\d*)+\b")
_PART = re.compile(r"([A-Z][a-z]?)(\d*)")


def elements(token: str) -> tuple[str, ...] | None:
    """The element symbols of a formula token, or None when it is not a formula."""
    if not _TOKEN.fullmatch(token) or not any(c.isdigit() or c.islower() for c in token):
        return None
    parts = [symbol for symbol, _ in _PART.findall(token)]
    if not parts or any(symbol not in ELEMENT_ROOTS for symbol in parts):
        return None
    if len(parts) == 1 and not any(c.isdigit() for c in token):
        return None  # "Co", "Ne": a word or a name, not a formula
    return tuple(dict.fromkeys(parts))


def formulas(text: str) -> list[str]:
    """The formula tokens of ``text``, in order."""
    return [m.group() for m in _TOKEN.finditer(text) if elements(m.group())]


def spelled_out(token: str, flat: str) -> bool:
    """Whether the normalised passage text ``flat`` (" words ... ") names the formula's
    compound or every one of its elements."""
    found = elements(token)
    if not found:
        return False
    if any(f" {name} " in flat for name in COMMON_NAMES.get(token, ())):
        return True
    return all(any(re.search(rf" {re.escape(root)}[a-z]*", flat) for root in ELEMENT_ROOTS[s])
               for s in found)
