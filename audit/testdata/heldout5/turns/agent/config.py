class ModuleConfig:
    def __init__(self, src):
        self.src = src
        self._configure()

    def _get_int(self, key, default):
        return self.src.get_int("coder." + key, default)


class CoderConfig(ModuleConfig):
    def _configure(self):
        self.max_retry_count = self._get_int("max_retry_count", 3)
        self.verify = self._get_bool("verify", False)
