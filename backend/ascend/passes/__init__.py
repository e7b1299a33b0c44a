"""The device's passes (ascend-select-kernels, ascend-cell-reuse, ascend-execution-order,
ascend-plan-memory, ascend-assign-streams) and the kernel graph they share."""
