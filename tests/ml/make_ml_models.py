#!/usr/bin/env python3
"""Trains small classic-ML pipelines (fixed seeds), exports them to ONNX with skl2onnx and
onnxmltools, and writes tests/ml/models/<name>/{model.onnx, test_data_set_0/*.pb} with ONNX
Runtime's outputs as the reference. Needs scikit-learn, skl2onnx, onnxmltools, xgboost, lightgbm,
onnxruntime (a venv: see tests/ml/README.md); the test suite itself only reads the files.

ZipMap outputs (a sequence of maps in ONNX Runtime) are stored as the dense [N, C] probability
matrix, columns in class-label order: that is what onnxc returns for a ZipMap output
(docs/runtime-api.md).

Usage: make_ml_models.py [OUT_DIR]   (default: tests/ml/models next to this script)
"""
import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper
from skl2onnx import convert_sklearn
from skl2onnx.common.data_types import FloatTensorType, Int64TensorType
from sklearn import (compose, datasets, ensemble, impute, linear_model, pipeline, preprocessing, svm,
                     tree)

SEED = 0
ROWS = 8  # rows in each test data set


def data(kind, n_features=4, n_classes=3):
    rng = np.random.RandomState(SEED)
    if kind == "reg":
        x, y = datasets.make_regression(60, n_features, noise=0.1, random_state=SEED)
    else:
        x, y = datasets.make_classification(80, n_features, n_informative=3, n_redundant=0,
                                            n_classes=n_classes, n_clusters_per_class=1,
                                            random_state=SEED)
    x = (x + rng.normal(0, 0.01, x.shape)).astype(np.float32)
    return x, y


def skl(model, n_features, zipmap=False, inputs=None):
    """skl2onnx export; `inputs` overrides the single float input [None, n_features]."""
    est = model.steps[-1][1] if isinstance(model, pipeline.Pipeline) else model
    opts = {id(est): {"zipmap": zipmap}} if hasattr(est, "predict_proba") else None
    inputs = inputs or [("input", FloatTensorType([None, n_features]))]
    return convert_sklearn(model, initial_types=inputs, target_opset={"": 17, "ai.onnx.ml": 3},
                           options=opts)


def xgb_onnx(model, n_features):
    from onnxmltools.convert import convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType as MlFloat
    return convert_xgboost(model, initial_types=[("input", MlFloat([None, n_features]))],
                           target_opset=15)


def lgbm_onnx(model, n_features, zipmap=False):
    from onnxmltools.convert import convert_lightgbm
    from onnxmltools.convert.common.data_types import FloatTensorType as MlFloat
    return convert_lightgbm(model, initial_types=[("input", MlFloat([None, n_features]))],
                            target_opset=15, zipmap=zipmap)


def cases():
    import lightgbm
    import xgboost
    xc, yc = data("clf")
    xb, yb = data("clf", n_classes=2)
    xr, yr = data("reg")
    fit = lambda m, x, y: m.fit(x, y)
    scaled = lambda m: pipeline.make_pipeline(preprocessing.StandardScaler(), m)
    yield "logreg_multiclass_zipmap", skl(fit(scaled(linear_model.LogisticRegression()), xc, yc), 4, True), xc
    yield "logreg_binary", skl(fit(linear_model.LogisticRegression(), xb, yb), 4), xb
    yield "ridge_minmax", skl(fit(pipeline.make_pipeline(preprocessing.MinMaxScaler(),
                                                         linear_model.Ridge()), xr, yr), 4), xr
    yield "linear_regression", skl(fit(linear_model.LinearRegression(), xr, yr), 4), xr
    yield "linear_svc", skl(fit(svm.LinearSVC(random_state=SEED), xc, yc), 4), xc
    yield "decision_tree_clf_zipmap", skl(fit(tree.DecisionTreeClassifier(max_depth=3,
                                                                          random_state=SEED), xc, yc), 4, True), xc
    yield "decision_tree_binary", skl(fit(tree.DecisionTreeClassifier(max_depth=3,
                                                                      random_state=SEED), xb, yb), 4), xb
    yield "random_forest_clf", skl(fit(ensemble.RandomForestClassifier(
        n_estimators=4, max_depth=3, random_state=SEED), xc, yc), 4), xc
    yield "random_forest_reg", skl(fit(ensemble.RandomForestRegressor(
        n_estimators=4, max_depth=3, random_state=SEED), xr, yr), 4), xr
    yield "gradient_boosting_clf", skl(fit(ensemble.GradientBoostingClassifier(
        n_estimators=5, max_depth=2, random_state=SEED), xc, yc), 4), xc
    yield "gradient_boosting_reg", skl(fit(ensemble.GradientBoostingRegressor(
        n_estimators=5, max_depth=2, random_state=SEED), xr, yr), 4), xr
    yield "xgboost_clf", xgb_onnx(fit(xgboost.XGBClassifier(n_estimators=4, max_depth=2,
                                                            random_state=SEED), xc, yc), 4), xc
    yield "xgboost_binary", xgb_onnx(fit(xgboost.XGBClassifier(n_estimators=4, max_depth=2,
                                                               random_state=SEED), xb, yb), 4), xb
    yield "xgboost_reg", xgb_onnx(fit(xgboost.XGBRegressor(n_estimators=4, max_depth=2,
                                                           random_state=SEED), xr, yr), 4), xr
    lgb = dict(n_estimators=4, num_leaves=4, min_child_samples=5, random_state=SEED, verbose=-1)
    yield "lightgbm_clf", lgbm_onnx(fit(lightgbm.LGBMClassifier(**lgb), xc, yc), 4), xc
    yield "lightgbm_binary_zipmap", lgbm_onnx(fit(lightgbm.LGBMClassifier(**lgb), xb, yb), 4, True), xb
    yield "lightgbm_reg", lgbm_onnx(fit(lightgbm.LGBMRegressor(**lgb), xr, yr), 4), xr
    pre = pipeline.make_pipeline(impute.SimpleImputer(), preprocessing.Normalizer(),
                                 preprocessing.Binarizer(threshold=0.1), linear_model.LogisticRegression())
    xn = xc.copy()
    xn[::7, 1] = np.nan
    yield "impute_normalize_binarize_logreg", skl(fit(pre, xn, yc), 4, True), xn
    yield from svm_cases(xc, yc, xb, yb, xr, yr)
    yield from encoder_cases(xc, yc)
    yield from svm_node_cases()
    yield from node_cases()


def svm_cases(xc, yc, xb, yb, xr, yr):
    """SVMClassifier (one-vs-one votes, Platt probabilities) and SVMRegressor (SVR, one-class)."""
    fit = lambda m, x, y: m.fit(x, y)
    yield "svc_rbf_proba", skl(fit(svm.SVC(probability=True, random_state=SEED), xc, yc), 4), xc
    # without probabilities skl2onnx turns the pairwise scores into ovr scores with ZipMap
    yield "svc_rbf_zipmap", skl(fit(svm.SVC(), xc, yc), 4), xc
    yield "svc_poly_binary", skl(fit(svm.SVC(kernel="poly", degree=3), xb, yb), 4), xb
    yield "nusvc_sigmoid_proba_binary", skl(fit(svm.NuSVC(kernel="sigmoid", probability=True,
                                                          random_state=SEED), xb, yb), 4), xb
    x4, y4 = data("clf", n_classes=4)
    yield "svc_linear_proba_4class", skl(fit(svm.SVC(kernel="linear", probability=True,
                                                      random_state=SEED), x4, y4), 4), x4
    yield "svr_rbf", skl(fit(svm.SVR(C=100.0), xr, yr), 4), xr
    yield "svr_linear", skl(fit(svm.SVR(kernel="linear"), xr, yr), 4), xr
    yield "linear_svr", skl(fit(svm.LinearSVR(random_state=SEED), xr, yr), 4), xr
    yield "one_class_svm", skl(svm.OneClassSVM(nu=0.2).fit(xc), 4), xc


def encoder_cases(xc, yc):
    """OneHotEncoder on int64 categories, and FeatureVectorizer (skl2onnx joins several inputs of
    a scaler with it)."""
    rng = np.random.RandomState(SEED)
    cats = rng.randint(0, 3, (len(xc), 2))
    xf = np.hstack([cats, xc[:, :2]]).astype(np.float32)
    ct = pipeline.make_pipeline(
        compose.ColumnTransformer([("onehot", preprocessing.OneHotEncoder(), [0, 1]),
                                   ("num", "passthrough", [2, 3])]),
        linear_model.LogisticRegression())
    yield "onehot_column_transformer", skl(ct.fit(xf, yc), 4), xf
    oh = pipeline.make_pipeline(preprocessing.OneHotEncoder(handle_unknown="ignore"),
                                linear_model.LogisticRegression()).fit(cats[:, :2] * 2, yc)
    yield "onehot_int64", skl(oh, 2, inputs=[("input", Int64TensorType([None, 2]))]), cats
    sc = pipeline.make_pipeline(preprocessing.StandardScaler(), linear_model.LogisticRegression())
    two = [("a", FloatTensorType([None, 3])), ("b", FloatTensorType([None, 1]))]
    yield "feature_vectorizer_scaler", skl(sc.fit(xc, yc), 4, inputs=two), [xc[:, :3], xc[:, 3:]]


def ml_node_model(name, op, inputs, out_type, outputs=("Y",), **attrs):
    """A one-node ai.onnx.ml model; `inputs` is [(name, TensorProto type, [dims])]; the last
    output has `out_type`, others (a classifier's label) int64."""
    from onnx import TensorProto, helper
    node = helper.make_node(op, [i[0] for i in inputs], list(outputs), domain="ai.onnx.ml",
                            **attrs)
    outs = [helper.make_tensor_value_info(o, TensorProto.INT64, None) for o in outputs[:-1]]
    outs.append(helper.make_tensor_value_info(outputs[-1], out_type, None))
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info(*i) for i in inputs],
                              outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("ai.onnx.ml", 4)])


def svm_node_cases():
    """SVMClassifier modes the converters above do not produce: liblinear mode (no support
    vectors, where the kernel is always LINEAR; ONNX Runtime's binary label rule), double input, a post_transform on the pairwise
    scores of a POLY kernel (degree 2), and an SVMRegressor with a SIGMOID kernel."""
    from onnx import TensorProto as T
    rng = np.random.RandomState(SEED)
    x = rng.normal(0, 1, (ROWS, 3)).astype(np.float32)
    coef = rng.normal(0, 1, 9).round(3).tolist()
    yield "svm_classifier_liblinear", ml_node_model(
        "svm", "SVMClassifier", [("X", T.DOUBLE, [None, 3])], T.FLOAT, outputs=["label", "Y"],
        classlabels_ints=[3, 7, 9], coefficients=coef, rho=[0.25], post_transform="LOGISTIC",
        kernel_type="RBF", kernel_params=[0.5, 0.0, 0.0]), x.astype(np.float64)
    yield "svm_classifier_liblinear_binary", ml_node_model(
        "svm", "SVMClassifier", [("X", T.FLOAT, [None, 3])], T.FLOAT, outputs=["label", "Y"],
        classlabels_ints=[4, 6], coefficients=coef[:6], rho=[-0.1], kernel_params=[0.0] * 3), x
    sv = rng.normal(0, 1, 15).round(3).tolist()  # 5 support vectors: 2, 1, 2 per class
    yield "svm_classifier_poly_softmax", ml_node_model(
        "svm", "SVMClassifier", [("X", T.FLOAT, [None, 3])], T.FLOAT, outputs=["label", "Y"],
        classlabels_ints=[0, 1, 2], vectors_per_class=[2, 1, 2], support_vectors=sv,
        coefficients=rng.normal(0, 1, 10).round(3).tolist(), rho=[0.1, -0.2, 0.3],
        kernel_type="POLY", kernel_params=[0.5, 1.0, 2.0], post_transform="SOFTMAX"), x
    yield "svm_regressor_sigmoid", ml_node_model(
        "svm", "SVMRegressor", [("X", T.FLOAT, [None, 3])], T.FLOAT, n_supports=5,
        support_vectors=sv, coefficients=[0.5, -1.0, 0.25, 2.0, -0.75], rho=[0.5],
        kernel_type="SIGMOID", kernel_params=[0.3, -0.1, 0.0]), x


def node_cases():
    """Single ML nodes no converter emits in these pipelines: LabelEncoder on numbers (a repeated
    key: ONNX Runtime keeps the first value), a float OneHotEncoder and a FeatureVectorizer that
    cuts and pads its inputs."""
    from onnx import TensorProto as T, helper
    ints = np.array([[1, 5], [3, 2], [5, 5], [0, -7], [3, 1], [2, 2], [1, 1], [9, 3]], np.int64)
    yield "label_encoder_int_float", ml_node_model(
        "le", "LabelEncoder", [("X", T.INT64, [None, 2])], T.FLOAT, keys_int64s=[1, 5, 3, 5, -7],
        values_floats=[0.5, 1.5, 2.5, 3.5, -1.0], default_float=7.25), ints
    reals = np.array([0.5, np.nan, -2.0, 3.25, 0.5, 8.0, -0.0, 1e9], np.float32)
    yield "label_encoder_float_int", ml_node_model(
        "le", "LabelEncoder", [("X", T.FLOAT, [None])], T.INT64, keys_floats=[0.5, np.nan, 3.25, 0.0],
        values_int64s=[10, 20, 30, 40]), reals
    yield "label_encoder_tensor_int64_double", ml_node_model(
        "le", "LabelEncoder", [("X", T.INT64, [None, 2])], T.DOUBLE,
        keys_tensor=helper.make_tensor("k", T.INT64, [3], [5, 2, 9]),
        values_tensor=helper.make_tensor("v", T.DOUBLE, [3], [0.125, -3.5, 1e10]),
        default_tensor=helper.make_tensor("d", T.DOUBLE, [1], [-1.0])), ints
    fx = np.array([[1.7, -0.5], [4.0, 3.9], [1.0, 2.0], [-3.2, 4.99], [0.0, 1.0], [3.0, 3.0],
                   [4.5, 1.2], [2.0, -1.0]], np.float32)
    yield "onehot_float", ml_node_model("oh", "OneHotEncoder", [("X", T.FLOAT, [None, 2])],
                                        T.FLOAT, cats_int64s=[3, 1, 4, -3], zeros=1), fx
    fv = ml_node_model("fv", "FeatureVectorizer", [("A", T.INT64, [8, 3]), ("B", T.INT64, [8, 1]),
                       ("C", T.INT64, [8, 2])], T.FLOAT, inputdimensions=[2, 3, 2])
    yield "feature_vectorizer_cut_pad", fv, [ints[:, [0, 1, 0]], ints[:, :1], ints]


def dense(value, session_output):
    """ORT output as an ndarray; a ZipMap list of dicts becomes [N, C] in label order."""
    if isinstance(value, list):
        keys = sorted(value[0].keys())
        return np.array([[row[k] for k in keys] for row in value], dtype=np.float32)
    return np.asarray(value)


def write_case(out, name, model, x):
    """Writes model.onnx and test_data_set_0; `x` is the input array or a list (one per input)."""
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    model.graph.name = name  # the converters name graphs with random UUIDs
    imports = sorted(model.opset_import, key=lambda o: o.domain)  # and list them in any order
    del model.opset_import[:]
    model.opset_import.extend(imports)
    onnx.save(model, os.path.join(d, "model.onnx"))
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    xs = [a[:ROWS] for a in (x if isinstance(x, list) else [x])]  # one array per graph input
    feeds = {inp.name: a for inp, a in zip(sess.get_inputs(), xs)}
    ds = os.path.join(d, "test_data_set_0")
    for i, (name, a) in enumerate(feeds.items()):
        with open(os.path.join(ds, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())
    for i, (o, v) in enumerate(zip(sess.get_outputs(), sess.run(None, feeds))):
        with open(os.path.join(ds, f"output_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(dense(v, o), o.name).SerializeToString())


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "models")
    for name, model, x in cases():
        write_case(out, name, model, x)
        print("wrote", name)


if __name__ == "__main__":
    main()
