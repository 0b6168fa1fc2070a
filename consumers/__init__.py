"""The kafka-python edge: embedded broker, topics, decoding, dead letters and offset commits."""
