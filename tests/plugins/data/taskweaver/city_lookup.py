from taskweaver.plugin import register_plugin

COUNTRIES = {"paris": "France", "lyon": "France", "kyoto": "Japan", "lima": "Peru"}


@register_plugin
def city_lookup(city):
    """A function registered as a plugin: TaskWeaver wraps it in a Plugin class."""
    return COUNTRIES.get(str(city).strip().lower(), "unknown")
