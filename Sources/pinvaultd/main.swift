print("pinvaultd")
