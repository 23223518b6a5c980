/// What every runner of lines hands `LineExecutor`: the effects its
/// commands may ask for (`CommandEffects`) and the hooks its loops call
/// (`LineHooks`), in one value. `ProcessSink` is a real run's,
/// `HeldOutput` a text's while it runs ahead of its check, `CaptureSink` a
/// golden test's and an editor's, `ForecastSink` the prompt's preview's.
public protocol CommandSink: CommandEffects, LineHooks {}
