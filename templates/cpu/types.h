/* Type lists for kernel templates: LIST(X, args...) expands X(c_type, suffix, args...) per type. The suffix is dtype_suffix() of the ONNX
 * dtype (compiler/ir/dtype.cpp) and ends every kernel name: onnxc_k_add_f32, onnxc_k_relu_f64. */
#ifndef ONNXC_KERNEL_TYPES_H
#define ONNXC_KERNEL_TYPES_H

#define ONNXC_FLOAT_TYPES(X, ...) X(float, f32, __VA_ARGS__) X(double, f64, __VA_ARGS__)
#define ONNXC_SIGNED_INT_TYPES(X, ...)                                                             \
  X(signed char, i8, __VA_ARGS__) X(short, i16, __VA_ARGS__) X(int, i32, __VA_ARGS__)              \
  X(long long, i64, __VA_ARGS__)
#define ONNXC_UNSIGNED_INT_TYPES(X, ...)                                                           \
  X(unsigned char, u8, __VA_ARGS__) X(unsigned short, u16, __VA_ARGS__)                            \
  X(unsigned int, u32, __VA_ARGS__) X(unsigned long long, u64, __VA_ARGS__)
#define ONNXC_INT_TYPES(X, ...) ONNXC_SIGNED_INT_TYPES(X, __VA_ARGS__) ONNXC_UNSIGNED_INT_TYPES(X, __VA_ARGS__)
#define ONNXC_SIGNED_TYPES(X, ...) ONNXC_FLOAT_TYPES(X, __VA_ARGS__) ONNXC_SIGNED_INT_TYPES(X, __VA_ARGS__)
#define ONNXC_NUMERIC_TYPES(X, ...) ONNXC_FLOAT_TYPES(X, __VA_ARGS__) ONNXC_INT_TYPES(X, __VA_ARGS__)
#define ONNXC_BOOL_TYPES(X, ...) X(bool, bool, __VA_ARGS__)
#define ONNXC_ALL_TYPES(X, ...) ONNXC_NUMERIC_TYPES(X, __VA_ARGS__) ONNXC_BOOL_TYPES(X, __VA_ARGS__)

#endif
