"""The pure core: exact math, answer parsing, diagnosis and generators.

Nothing here imports a terminal library, a storage library, or touches a user file.
"""
