typedef struct {
    uintptr_t kernel; int n_ent; const int32_t* local; double* coeffs; int stride;
    const double* coords; const int32_t* dofs; int n_upd; const int64_t* upd_pos;
    const int32_t* upd_src; const int32_t* upd_dof;
} ancf_integral;
typedef struct {
    const ancf_integral* its; int n_its; double* consts; int n_const;
    double* const* const_src; const int32_t* const_size; double* const* coef_src;
} ancf_form;
