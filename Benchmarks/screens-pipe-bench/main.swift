import ScreensBus
print("bench")
