/* candlewick._native's GPU launch: a GPU backend's kernel launches through its
   runtime's launch function (launch, fft_exec, the argument struct filled in C), the
   stream launch and the element-wise contiguous launch on top of it, and its caching
   allocator's hit path (BlockCache). */

#ifndef CANDLEWICK_NATIVE_LAUNCH_H
#define CANDLEWICK_NATIVE_LAUNCH_H

#include "_native.h"

/* _native_blocks.c */
extern PyTypeObject cw_BlockCacheType;
int cw_block_cache_ready(void);

/* _native_launch.c */
extern const char cw_launch_doc[];
PyObject *cw_launch(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char cw_fft_exec_doc[];
PyObject *cw_fft_exec(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* An int as an address (TypeError naming the call ``who`` for another kind) / as an 8-byte
   field (an int or what has __index__; addresses past 2^63 too): 0, or -1 with the error set. */
int cw_as_address(PyObject *obj, const char *who, void **out);
int cw_as_word(PyObject *obj, unsigned long long *out);
/* An argument struct on the caller's stack: aligned for every field kind. */
#define CW_FILLED_MAX_BYTES 1024 /* the largest argument struct of rocm_backend is 432 bytes */
#define CW_STRUCT_BUFFER(name) \
    union { \
        unsigned char bytes[CW_FILLED_MAX_BYTES]; \
        long double align_; \
        unsigned long long words_[1]; \
    } name
/* `template`'s bytes copied into buffer (*size of them) with each of the nfills `fills`
   written at the byte offset of the same place in the tuple `offsets` (which may hold
   more): 0, or -1 with the error set (a template that is no bytes or too large, a field
   past its end, a fill that is no int). */
int cw_fill_struct(PyObject *template, PyObject *offsets, PyObject *const *fills, Py_ssize_t nfills,
                   unsigned char *buffer, size_t *size);
void cw_put_word(unsigned char *buffer, Py_ssize_t at, unsigned long long word);
/* The launch function at `function` called with the struct in buffer (size bytes) as its
   extra argument, the GIL released: the function's status. */
int cw_launch_struct(void *function, void *kernel, const unsigned int d[7], void *stream, unsigned char *buffer,
                     size_t size);

/* _native_launcher.c */
extern PyTypeObject cw_StreamLaunchType;
int cw_launcher_ready(void);
/* Queue `kernel` with the struct in buffer (size bytes) through the StreamLaunch `launch`,
   on the calling thread's stream of its device: 0, or -1 with the error set. `fn` is the
   kernel's fn_int, the handle, which the caller has read (ContiguousLaunch reads it to
   choose its path); `kernel` itself names a failed launch. */
int cw_stream_run(PyObject *launch, PyObject *kernel, PyObject *fn, const unsigned int d[7], unsigned char *buffer,
                  size_t size);

/* _native_contiguous.c */
extern PyTypeObject cw_ContiguousLaunchType;
int cw_contiguous_launch_ready(void);
/* The value of the attribute `name` of obj in *value (new reference) and 1, or 0 where
   it has none (no AttributeError made), -1 on another error. */
int cw_optional_attr(PyObject *obj, PyObject *name, PyObject **value);

#endif
