"""GPU tests of the rocm backend (skipped without a rocm device)."""
