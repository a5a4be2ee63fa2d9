"""The pack cache's records as they are read back: each field's type checked as it is decoded
(``checks``), and questions kept as their text until a field beyond their head is used
(``unread``). drills.packs.cache reads and writes the file."""
