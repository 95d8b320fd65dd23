"""cardarena_sdk: write a bot for cardarena by overriding one method."""
