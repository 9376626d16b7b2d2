// Drag and drop onto the upload form: the dropped file goes into its file field. The form works without this.
(function () {
  var form = document.querySelector("form[data-drop]");
  if (!form) return;
  var input = form.querySelector("input[type=file]");
  ["dragenter", "dragover"].forEach(function (name) {
    form.addEventListener(name, function (event) { event.preventDefault(); form.classList.add("dragging"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    form.addEventListener(name, function () { form.classList.remove("dragging"); });
  });
  form.addEventListener("drop", function (event) {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files.length) input.files = event.dataTransfer.files;
  });
})();
