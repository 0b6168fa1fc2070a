"""ML classifiers: training, evaluation and the shipped model artifacts."""
