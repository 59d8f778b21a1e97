import ScreensPipe
print("screens-pipe")
