"""Live tf.data timing demos."""
