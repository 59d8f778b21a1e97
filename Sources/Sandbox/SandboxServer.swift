import ScreensBus
