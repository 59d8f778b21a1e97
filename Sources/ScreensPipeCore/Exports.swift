// The bus, its events and the JSON value are part of every pipeline's API, so one
// `import ScreensPipe` is enough for a service that runs and watches pipelines.
@_exported import ScreensBus
