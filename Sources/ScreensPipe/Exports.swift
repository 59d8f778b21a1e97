// The umbrella: every product of the package behind one import, as before the split, so a
// service written against `import ScreensPipe` changes nothing. Linking it links every
// backend (SQLite, PostgreSQL) and the bundled sandbox; each registers itself with the
// core. A service that wants less depends on `ScreensPipeCore` and the stores it uses.
@_exported import ScreensPipeCore
@_exported import ScreensPipePostgres
@_exported import ScreensPipeSQLite
@_exported import ScreensPipeSandbox
