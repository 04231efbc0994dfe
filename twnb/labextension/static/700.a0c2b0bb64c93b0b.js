"use strict";(self.rspackChunktwnb_labextension=self.rspackChunktwnb_labextension||[]).push([[700],{646(r,o,n){var t=n(601),e=n.n(t),a=n(314),i=(n.n(a))()(e());i.push([r.id,`/* twnb Round renderer and Round history. Every rule is scoped under .twnb-round or
   .twnb-round-history and takes its colours from JupyterLab's theme variables, so light and dark
   themes both read well and nothing outside these widgets changes. */

.twnb-round {
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-content-font-size1);
  color: var(--jp-content-font-color1);
  background: var(--jp-layout-color0);
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 4px;
  padding: 8px 12px;
  overflow: auto;
}

.twnb-round .twnb-header {
  display: flex;
  align-items: baseline;
  gap: 10px;
  flex-wrap: wrap;
}

.twnb-round .twnb-title {
  font-weight: 600;
  font-size: var(--jp-content-font-size2);
}

.twnb-round .twnb-facts {
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-state,
.twnb-round-history .twnb-state {
  border-radius: 8px;
  padding: 0 8px;
  font-size: var(--jp-ui-font-size0);
  border: var(--jp-border-width) solid var(--jp-border-color1);
  color: var(--jp-content-font-color1);
  background: var(--jp-layout-color2);
}

.twnb-round .twnb-state-finished,
.twnb-round-history .twnb-state-finished {
  border-color: var(--jp-success-color1);
}

.twnb-round .twnb-state-failed,
.twnb-round .twnb-state-interrupted,
.twnb-round-history .twnb-state-failed,
.twnb-round-history .twnb-state-interrupted {
  border-color: var(--jp-error-color1);
}

.twnb-round .twnb-schema-note {
  margin: 6px 0;
  padding: 4px 8px;
  border-left: 3px solid var(--jp-warn-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-content-font-color1);
}

.twnb-round .twnb-request {
  margin: 6px 0;
  font-style: italic;
}

.twnb-round .twnb-answer {
  margin: 6px 0;
  padding: 4px 10px;
  border-left: 3px solid var(--jp-brand-color1);
  background: var(--jp-layout-color1);
}

.twnb-round .twnb-markdown > :first-child {
  margin-top: 0;
}

.twnb-round .twnb-markdown > :last-child {
  margin-bottom: 0;
}

.twnb-round .twnb-section {
  margin: 6px 0;
}

.twnb-round .twnb-section > summary,
.twnb-round .twnb-post > summary {
  cursor: pointer;
  color: var(--jp-content-font-color1);
}

.twnb-round .twnb-section-title {
  font-weight: 600;
}

.twnb-round .twnb-section-body {
  padding: 4px 0 0 14px;
}

.twnb-round .twnb-plan-list {
  margin: 0;
  padding-left: 22px;
}

.twnb-round .twnb-step {
  margin: 2px 0;
}

.twnb-round .twnb-step-mark {
  display: inline-block;
  width: 1.4em;
}

.twnb-round .twnb-step-done .twnb-step-mark {
  color: var(--jp-success-color1);
}

.twnb-round .twnb-step-in_progress .twnb-step-mark {
  color: var(--jp-brand-color1);
}

.twnb-round .twnb-step-failed .twnb-step-mark,
.twnb-round .twnb-step-abandoned .twnb-step-mark {
  color: var(--jp-error-color1);
}

.twnb-round .twnb-step-state {
  margin-left: 8px;
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-actions {
  display: flex;
  gap: 8px;
  margin: 4px 0;
}

.twnb-round .twnb-actions button {
  cursor: pointer;
  padding: 2px 10px;
  border-radius: 3px;
  border: var(--jp-border-width) solid var(--jp-border-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}

.twnb-round .twnb-actions button:hover:enabled {
  background: var(--jp-layout-color3);
}

.twnb-round .twnb-actions button:disabled {
  cursor: default;
  color: var(--jp-ui-font-color3);
}

.twnb-round .twnb-code pre,
.twnb-round pre.twnb-result,
.twnb-round pre.twnb-error {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  background: var(--jp-cell-editor-background);
  color: var(--jp-content-font-color1);
  border: var(--jp-border-width) solid var(--jp-cell-editor-border-color);
  padding: 6px 8px;
  margin: 4px 0;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}

.twnb-round pre.twnb-error {
  border-left: 3px solid var(--jp-error-color1);
}

.twnb-round .twnb-previews {
  display: flex;
  flex-wrap: wrap;
  gap: 10px;
  margin: 6px 0;
}

.twnb-round .twnb-preview {
  margin: 0;
  max-width: 340px;
}

.twnb-round .twnb-preview-image {
  max-width: 320px;
  max-height: 320px;
  cursor: pointer;
  background: white; /* plots are drawn for a white page; keep them readable in dark themes */
  border: var(--jp-border-width) solid var(--jp-border-color2);
}

.twnb-round .twnb-preview figcaption {
  font-size: var(--jp-ui-font-size0);
  overflow-wrap: anywhere;
}

.twnb-round a.twnb-artifact {
  color: var(--jp-content-link-color);
  margin-right: 8px;
}

.twnb-round .twnb-post {
  margin: 2px 0;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color3);
}

.twnb-round .twnb-post-route {
  font-weight: 600;
  margin-right: 8px;
}

/* Step mode: the decision a person made on a plan or a piece of code, said quietly. */
.twnb-round .twnb-decision {
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
  font-style: italic;
  margin-right: 8px;
}

.twnb-round .twnb-post-first-line {
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-exec {
  margin-right: 8px;
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-exec-success {
  color: var(--jp-success-color1);
}

.twnb-round .twnb-exec-failure {
  color: var(--jp-error-color1);
}

.twnb-round .twnb-post-body {
  padding: 4px 0 6px 14px;
}

.twnb-round .twnb-field-name {
  color: var(--jp-content-font-color2);
}

.twnb-round-history {
  padding: 8px;
  color: var(--jp-ui-font-color1);
  background: var(--jp-layout-color1);
  font-size: var(--jp-ui-font-size1);
  overflow: auto;
}

.twnb-round-history .twnb-history-title {
  font-size: var(--jp-ui-font-size2);
  margin: 0 0 8px;
}

.twnb-round-history .twnb-history-list {
  margin: 0;
  padding-left: 0;
  list-style: none;
}

.twnb-round-history .twnb-history-item {
  display: flex;
  width: 100%;
  justify-content: space-between;
  gap: 6px;
  text-align: left;
  margin: 2px 0;
  padding: 4px 6px;
  cursor: pointer;
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 3px;
  background: var(--jp-layout-color0);
  color: var(--jp-ui-font-color1);
}

.twnb-round-history .twnb-history-item:hover {
  background: var(--jp-layout-color2);
}

/* The main view's code blocks: each with its outcome and the decision made on it. */
.twnb-round .twnb-code-block {
  margin: 6px 0 8px;
}

.twnb-round .twnb-code-head {
  display: flex;
  align-items: baseline;
  gap: 6px;
  flex-wrap: wrap;
}

.twnb-round .twnb-code-number {
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-outcome {
  border-radius: 8px;
  padding: 0 6px;
  font-size: var(--jp-ui-font-size0);
  border: var(--jp-border-width) solid var(--jp-border-color1);
  background: var(--jp-layout-color2);
}

.twnb-round .twnb-outcome-badge-ran {
  border-color: var(--jp-success-color1);
}

.twnb-round .twnb-outcome-badge-failed,
.twnb-round .twnb-outcome-badge-refused {
  border-color: var(--jp-error-color1);
}

.twnb-round .twnb-code-head .twnb-decision {
  font-size: var(--jp-content-font-size1);
}

.twnb-round pre.twnb-code-text {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  white-space: pre-wrap;
  margin: 4px 0;
  padding: 6px 8px;
  border: var(--jp-border-width) dashed var(--jp-border-color1);
}

.twnb-round .twnb-note {
  margin: 6px 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-error-color1);
}

.twnb-round .twnb-note-held_back_cells,
.twnb-round .twnb-note-cut_off {
  border-left-color: var(--jp-warn-color1);
}

.twnb-round .twnb-artifact-name {
  font-family: var(--jp-code-font-family);
}

.twnb-round .twnb-timeline {
  margin: 6px 0;
}

.twnb-round .twnb-timeline-row {
  margin: 0 0 4px; /* each bar apart from the next row's label, as the static HTML's rows are */
}

.twnb-round .twnb-timeline-label {
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-bar {
  height: 6px;
  margin-top: 2px;
  border-radius: 2px;
  background: var(--jp-brand-color1);
}

.twnb-round .twnb-bar-code {
  background: var(--jp-success-color1);
}

.twnb-round .twnb-bar-failed {
  background: var(--jp-error-color1);
}

.twnb-round .twnb-bar-skipped {
  background: var(--jp-border-color1);
}

.twnb-round .twnb-totals {
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-actions button.twnb-confirmed {
  border-color: var(--jp-success-color1);
}

/* The Rounds panel's state pill: its own height, centred, never stretched to the item's. */
.twnb-round-history .twnb-history-item .twnb-state {
  flex: none;
  align-self: center;
  line-height: 1.5;
  white-space: nowrap;
}

.twnb-round-history .twnb-history-item {
  align-items: center;
}

/* A plan step's Markdown is one line: its paragraph flows inline after the mark. */
.twnb-round .twnb-step-name p {
  display: inline;
  margin: 0;
}

/* An undone Round (%taskweaver undo): kept in the record, greyed under its header and its one line. */
.twnb-round.twnb-undone > :not(.twnb-header):not(.twnb-undone-line) {
  opacity: 0.5;
}

.twnb-round .twnb-undone-line {
  margin: 4px 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-border-color1);
  color: var(--jp-ui-font-color2);
}
`,""]),n.d(o,{},{A:i})},314(r){r.exports=function(r){var o=[];return o.toString=function(){return this.map(function(o){var n="",t=void 0!==o[5];return o[4]&&(n+="@supports (".concat(o[4],") {")),o[2]&&(n+="@media ".concat(o[2]," {")),t&&(n+="@layer".concat(o[5].length>0?" ".concat(o[5]):""," {")),n+=r(o),t&&(n+="}"),o[2]&&(n+="}"),o[4]&&(n+="}"),n}).join("")},o.i=function(r,n,t,e,a){"string"==typeof r&&(r=[[null,r,void 0]]);var i={};if(t)for(var d=0;d<this.length;d++){var p=this[d][0];null!=p&&(i[p]=!0)}for(var s=0;s<r.length;s++){var c=[].concat(r[s]);t&&i[c[0]]||(void 0!==a&&(void 0===c[5]||(c[1]="@layer".concat(c[5].length>0?" ".concat(c[5]):""," {").concat(c[1],"}")),c[5]=a),n&&(c[2]&&(c[1]="@media ".concat(c[2]," {").concat(c[1],"}")),c[2]=n),e&&(c[4]?(c[1]="@supports (".concat(c[4],") {").concat(c[1],"}"),c[4]=e):c[4]="".concat(e)),o.push(c))}},o}},601(r){r.exports=function(r){return r[1]}},72(r){var o=[];function n(r){for(var n=-1,t=0;t<o.length;t++)if(o[t].identifier===r){n=t;break}return n}function t(r,t){for(var e={},a=[],i=0;i<r.length;i++){var d=r[i],p=t.base?d[0]+t.base:d[0],s=e[p]||0,c="".concat(p," ").concat(s);e[p]=s+1;var b=n(c),l={css:d[1],media:d[2],sourceMap:d[3],supports:d[4],layer:d[5]};if(-1!==b)o[b].references++,o[b].updater(l);else{var u=function(r,o){var n=o.domAPI(o);return n.update(r),function(o){o?(o.css!==r.css||o.media!==r.media||o.sourceMap!==r.sourceMap||o.supports!==r.supports||o.layer!==r.layer)&&n.update(r=o):n.remove()}}(l,t);t.byIndex=i,o.splice(i,0,{identifier:c,updater:u,references:1})}a.push(c)}return a}r.exports=function(r,e){var a=t(r=r||[],e=e||{});return function(r){r=r||[];for(var i=0;i<a.length;i++){var d=n(a[i]);o[d].references--}for(var p=t(r,e),s=0;s<a.length;s++){var c=n(a[s]);0===o[c].references&&(o[c].updater(),o.splice(c,1))}a=p}}},659(r){var o={};r.exports=function(r,n){var t=function(r){if(void 0===o[r]){var n=document.querySelector(r);if(window.HTMLIFrameElement&&n instanceof window.HTMLIFrameElement)try{n=n.contentDocument.head}catch(r){n=null}o[r]=n}return o[r]}(r);if(!t)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");t.appendChild(n)}},540(r){r.exports=function(r){var o=document.createElement("style");return r.setAttributes(o,r.attributes),r.insert(o,r.options),o}},56(r,o,n){r.exports=function(r){var o=n.nc;o&&r.setAttribute("nonce",o)}},825(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var o=r.insertStyleElement(r);return{update:function(n){var t,e,a;t="",n.supports&&(t+="@supports (".concat(n.supports,") {")),n.media&&(t+="@media ".concat(n.media," {")),(e=void 0!==n.layer)&&(t+="@layer".concat(n.layer.length>0?" ".concat(n.layer):""," {")),t+=n.css,e&&(t+="}"),n.media&&(t+="}"),n.supports&&(t+="}"),(a=n.sourceMap)&&"u">typeof btoa&&(t+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),r.styleTagTransform(t,o,r.options)},remove:function(){var r;null===(r=o).parentNode||r.parentNode.removeChild(r)}}}},113(r){r.exports=function(r,o){if(o.styleSheet)o.styleSheet.cssText=r;else{for(;o.firstChild;)o.removeChild(o.firstChild);o.appendChild(document.createTextNode(r))}}},959(r,o,n){var t=n(72),e=n.n(t),a=n(825),i=n.n(a),d=n(659),p=n.n(d),s=n(56),c=n.n(s),b=n(540),l=n.n(b),u=n(113),w=n.n(u),f=n(646),v={};v.styleTagTransform=w(),v.setAttributes=c(),v.insert=p().bind(null,"head"),v.domAPI=i(),v.insertStyleElement=l(),e()(f.A,v),f.A&&f.A.locals&&f.A.locals}}]);