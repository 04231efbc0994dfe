import twnb_test_weather_client_not_installed  # noqa: F401  (the missing dependency)
from taskweaver.plugin import Plugin, register_plugin


@register_plugin
class FetchForecast(Plugin):
    def __call__(self, city):
        return "sunny"
