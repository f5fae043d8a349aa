"""candlewick quick start: list the backends, then fit a line on the default device.

Run: python examples/quickstart.py     (CANDLEWICK_DEVICE=rocm to use an AMD GPU)
"""

import candlewick as cw


def main():
    print("Backends:")
    for info in cw.backends():
        print("  ", info)

    device = cw.get_device(None)
    print(f"\nDefault device: {device.name}")

    # Noisy samples of y = 3x - 2, fitted by least squares with the normal equations.
    rng = cw.random.default_rng(42)
    x = cw.linspace(-1.0, 1.0, 1000, device=device)
    noise = rng.normal(0.0, 0.1, size=x.shape, device=device)
    y = 3.0 * x - 2.0 + noise

    design = cw.stack([x, cw.ones_like(x)], axis=1)          # (n, 2)
    gram = design.mT @ design                                # (2, 2)
    rhs = design.mT @ y                                      # (2,)
    det = gram[0, 0] * gram[1, 1] - gram[0, 1] * gram[1, 0]
    slope = (gram[1, 1] * rhs[0] - gram[0, 1] * rhs[1]) / det
    intercept = (gram[0, 0] * rhs[1] - gram[1, 0] * rhs[0]) / det
    residual = cw.mean((design @ cw.stack([slope, intercept]) - y) ** 2)

    print(f"fit: y = {float(slope):.3f} x + {float(intercept):.3f}  (true: 3x - 2)")
    print(f"mean squared residual: {float(residual):.5f}  (noise variance 0.01)")

    logits = cw.asarray([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], device=device)
    print("softmax:", cw.to_numpy(cw.nn.softmax(logits, axis=-1)).round(4).tolist())


if __name__ == "__main__":
    main()
