"""numpydoc entries and sections the nn functions share (filled in by
``docstrings.shared_doc``)."""

_STRIDE_PADDING = (
    "stride : {t}\n"
    "    The step of the window.\n"
    "padding : {t}\n"
    "    Zeros implicitly added on each side."
)
_DILATION_GROUPS = (
    "dilation : {t}\n"
    "    The spacing of the kernel's elements.\n"
    "groups : int\n"
    "    The number of channel groups."
)
_BIAS = "bias : Array or None\n    Per-output-channel bias ``(Cout,)``."

NN_DOCS = {
    "nn_conv_window_1d": _BIAS + "\n" + _STRIDE_PADDING.format(t="int"),
    "nn_conv_window_2d": _BIAS + "\n" + _STRIDE_PADDING.format(t="int or pair of int"),
    "nn_conv_dilation_groups_1d": _DILATION_GROUPS.format(t="int"),
    "nn_conv_dilation_groups_2d": _DILATION_GROUPS.format(t="int or pair of int"),
    "nn_conv_raises": (
        "Raises\n"
        "------\n"
        "TypeError\n"
        "    If x or weight is not a candlewick array, or an int parameter is not an int (pair).\n"
        "ShapeError\n"
        "    If x or weight has the wrong number of dimensions.\n"
        "DTypeError\n"
        "    If x is not real floating or weight's dtype differs.\n"
        "ValueError\n"
        "    If stride/dilation is not positive, padding is negative, groups does not divide the\n"
        "    channels, or the output would be empty.\n"
        "DeviceMismatchError\n"
        "    If the operands are on different devices."
    ),
    "nn_pool_window": (
        "Parameters\n"
        "----------\n"
        "x : Array\n"
        "    Input ``(N, C, H, W)``, real floating.\n"
        "kernel_size : int or pair of int\n"
        "    The window.\n"
        "stride : int, pair of int or None\n"
        "    The step; None for kernel_size."
    ),
    "nn_pool_returns_raises": (
        "Returns\n"
        "-------\n"
        "Array\n"
        "    ``(N, C, Hout, Wout)``.\n"
        "\n"
        "Raises\n"
        "------\n"
        "TypeError\n"
        "    If x is not an array or a size is not an int (pair).\n"
        "ShapeError\n"
        "    If x is not 4-D.\n"
        "DTypeError\n"
        "    If x is not real floating.\n"
        "ValueError\n"
        "    If a size is out of range."
    ),
    "nn_softmax_params": (
        "Parameters\n"
        "----------\n"
        "x : Array\n"
        "    Input, real floating.\n"
        "axis : int\n"
        "    The axis normalized over."
    ),
    "nn_norm_x_weight": "x : Array\n    Input, real floating, at least 1-D.\nweight : Array or None\n    Scale of the last axis' length.",
    "nn_norm_returns_raises": (  # ShapeError, which differs, follows
        "Returns\n-------\nArray\n    x normalized, of x's shape.\n\n"
        "Raises\n------\nTypeError\n    If an operand is not a candlewick array.\n"
        "DTypeError\n    If x is not real floating or the dtypes differ."
    ),
    "nn_softmax_raises": (
        "Raises\n"
        "------\n"
        "TypeError\n"
        "    If x is not a candlewick array.\n"
        "DTypeError\n"
        "    If x is not real floating.\n"
        "AxisError\n"
        "    If axis is out of range."
    ),
}
for _dims, _shape in (("1d", "``(N, Cout, Lout)``."), ("2d", "``(N, Cout, Hout, Wout)``.")):
    NN_DOCS[f"nn_conv_returns_raises_{_dims}"] = f"Returns\n-------\nArray\n    {_shape}\n\n" + NN_DOCS["nn_conv_raises"]
