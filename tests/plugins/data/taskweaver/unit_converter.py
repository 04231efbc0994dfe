from taskweaver.plugin import Plugin, register_plugin


@register_plugin
class UnitConverter(Plugin):
    def __call__(self, kilometres):
        value = float(kilometres) * float(self.config["factor"])
        self.log("info", f"converting with factor {self.config['factor']}")
        return f"{value:g} {self.config['unit']}"
