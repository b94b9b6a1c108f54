"""Re-derivation of credentialed-source images from a user's local copy (never redistributed)."""
