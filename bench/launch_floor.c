/*
 * The launch call without Python: `reps` launches of one kernel back to back from C,
 * through a launch function the caller passes (the HIP runtime's hipModuleLaunchKernel,
 * or, under tools/hip_on_cuda, the CUDA driver's cuLaunchKernel on the same handles).
 * bench/launch_floor.py builds it and times it beside the ctypes call the backend makes.
 *
 * The argument struct goes by value through `extra`: BUFFER_POINTER (1), BUFFER_SIZE (2),
 * then the runtime's end tag (HIP: 3, CUDA: 0), as the backend's launcher passes it.
 */
#include <stddef.h>

typedef int (*launch_fn)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                         unsigned bz, unsigned shmem, void *stream, void **params, void **extra);

int cw_launch_loop(launch_fn launch, void *fn, unsigned grid, unsigned block, void *stream, void *args,
                   size_t size, size_t end_tag, int reps)
{
    void *extra[5] = {(void *)1, args, (void *)2, &size, (void *)end_tag};
    for (int i = 0; i < reps; i++) {
        int status = launch(fn, grid, 1, 1, block, 1, 1, 0, stream, NULL, extra);
        if (status)
            return status;
    }
    return 0;
}
