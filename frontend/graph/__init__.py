"""Graph mode: Python source -> mindir -> default pipeline -> CPU executor."""
