from taskweaver.plugin import Plugin, register_plugin


@register_plugin
class SalesReport(Plugin):
    def __call__(self, df, group_by):
        summary = df.groupby(group_by, as_index=False)["amount"].sum()
        best = summary.sort_values("amount", ascending=False).iloc[0]
        note = f"{best[group_by]} sold the most: {best['amount']}"
        self.ctx.add_artifact("sales_summary", "summary.csv", "df", summary, "totals by group")
        self.ctx.add_artifact("sales_note", "note.txt", "txt", note)
        self.log("info", f"summarised {len(df)} rows")
        return summary, note
