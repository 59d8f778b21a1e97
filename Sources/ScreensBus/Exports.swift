// Events carry JSON values: the JSON library is part of the bus's API.
@_exported import ScreensJSON
