"""Generates the quickstart's dataset: daily sales of three coffee shops over four months.

The data has a story for the analysis to find: iced drinks follow the temperature, the Campus shop
slumps during the semester break, and Midtown has a one-week promotion. Seeded, so the file is the
same on every machine; run `python -m twnb.demo.make_dataset` to write it again.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import random
from pathlib import Path

STORES = ("Harbor", "Midtown", "Campus")
START = dt.date(2026, 3, 1)
DAYS = 122  # March to June
SEMESTER_BREAK = (dt.date(2026, 4, 20), dt.date(2026, 5, 10))
MIDTOWN_PROMO = (dt.date(2026, 6, 1), dt.date(2026, 6, 7))
ICED_PRICE, HOT_PRICE = 4.5, 3.5

COLUMNS = ("date", "store", "temperature_c", "iced_drinks", "hot_drinks", "revenue")


def _temperature(day: int, rng: random.Random) -> float:
    # Spring warming from ~8 °C to ~26 °C with day-to-day weather noise.
    return round(8 + 18 * day / DAYS + 3 * math.sin(day / 5) + rng.gauss(0, 1.5), 1)


def generate_rows(seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    base_traffic = {"Harbor": 220, "Midtown": 300, "Campus": 260}
    rows: list[dict[str, object]] = []
    for day in range(DAYS):
        date = START + dt.timedelta(days=day)
        temperature = _temperature(day, rng)
        weekend = date.weekday() >= 5
        for store in STORES:
            traffic = base_traffic[store] * (0.8 if weekend else 1.0)
            if store == "Campus" and SEMESTER_BREAK[0] <= date <= SEMESTER_BREAK[1]:
                traffic *= 0.45
            if store == "Midtown" and MIDTOWN_PROMO[0] <= date <= MIDTOWN_PROMO[1]:
                traffic *= 1.5
            iced_share = min(0.85, max(0.05, (temperature - 5) / 25))
            drinks = max(0, round(traffic * rng.uniform(0.9, 1.1)))
            iced = round(drinks * iced_share)
            hot = drinks - iced
            rows.append(
                {
                    "date": date.isoformat(),
                    "store": store,
                    "temperature_c": temperature,
                    "iced_drinks": iced,
                    "hot_drinks": hot,
                    "revenue": round(iced * ICED_PRICE + hot * HOT_PRICE, 2),
                }
            )
    return rows


def write_dataset(path: Path, seed: int = 7) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(generate_rows(seed))
    return path


if __name__ == "__main__":
    target = write_dataset(Path(__file__).with_name("coffee_sales.csv"))
    print(f"wrote {target}")
